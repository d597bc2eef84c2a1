import type { Knex } from 'knex';

/**
 * Web push subscriptions: one per browser (its endpoint is unique to it), owned by the
 * person signed in there last.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('push_subscriptions', (t) => {
    t.text('endpoint').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('p256dh').notNullable();
    t.text('auth').notNullable();
    t.boolean('is_safari').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['user_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('push_subscriptions');
}
