import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A friendship is stored once in each direction so "my friends" is one indexed lookup.
  await knex.schema.createTable('friendships', (t) => {
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('friend_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['user_id', 'friend_id']);
  });

  await knex.schema.createTable('friend_requests', (t) => {
    t.uuid('id').primary();
    t.uuid('from_user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('to_user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['from_user_id', 'to_user_id']);
    t.index(['to_user_id']);
  });

  // Substring search on username and display name, case-insensitive.
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  await knex.raw('CREATE INDEX users_username_trgm ON users USING gin (lower(username) gin_trgm_ops)');
  await knex.raw(
    "CREATE INDEX users_display_name_trgm ON users USING gin (lower(coalesce(display_name, '')) gin_trgm_ops)",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS users_display_name_trgm');
  await knex.raw('DROP INDEX IF EXISTS users_username_trgm');
  await knex.schema.dropTable('friend_requests');
  await knex.schema.dropTable('friendships');
}
