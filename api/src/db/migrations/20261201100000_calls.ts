import type { Knex } from 'knex';

/** Call history: one row per call that rang, written when it ends. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('calls', (t) => {
    t.uuid('id').primary();
    t.uuid('caller_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('callee_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('answered_at', { useTz: true }).nullable();
    t.timestamp('ended_at', { useTz: true }).notNullable();
    t.string('end_reason', 32).notNullable();
  });
  // "My calls, newest first" is one index range per side.
  await knex.raw('CREATE INDEX calls_caller_created ON calls (caller_id, created_at DESC, id DESC)');
  await knex.raw('CREATE INDEX calls_callee_created ON calls (callee_id, created_at DESC, id DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('calls');
}
