import type { Knex } from 'knex';

/** Group rooms, who joined which before (so private ones stay listed), and pending invitations. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rooms', (t) => {
    t.uuid('id').primary();
    t.string('name', 100).notNullable();
    t.string('description', 500).nullable();
    t.string('type', 16).notNullable();
    // scrypt, like account passwords; null: no password.
    t.text('password_hash').nullable();
    t.boolean('locked').notNullable().defaultTo(false);
    t.integer('max_participants').notNullable();
    t.uuid('admin_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['admin_id']);
  });
  await knex.raw("ALTER TABLE rooms ADD CONSTRAINT rooms_type CHECK (type IN ('public', 'private'))");
  // The list's filter: public rooms newest first, and names containing the query.
  await knex.raw('CREATE INDEX rooms_type_created ON rooms (type, created_at DESC)');
  await knex.raw('CREATE INDEX rooms_name_trgm ON rooms USING gin (lower(name) gin_trgm_ops)');

  await knex.schema.createTable('room_visits', (t) => {
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('room_id').notNullable().references('rooms.id').onDelete('CASCADE');
    t.timestamp('last_joined_at', { useTz: true }).notNullable();
    t.primary(['user_id', 'room_id']);
    t.index(['room_id']);
  });

  // One pending invitation per room and invitee; accepting or declining removes it.
  await knex.schema.createTable('room_invitations', (t) => {
    t.uuid('id').primary();
    t.uuid('room_id').notNullable().references('rooms.id').onDelete('CASCADE');
    t.uuid('inviter_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('invitee_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['room_id', 'invitee_id']);
    t.index(['invitee_id', 'created_at']);
    t.index(['inviter_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('room_invitations');
  await knex.schema.dropTable('room_visits');
  await knex.schema.dropTable('rooms');
}
