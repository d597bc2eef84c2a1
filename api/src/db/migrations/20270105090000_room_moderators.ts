import type { Knex } from 'knex';

/** The moderators the admin of each room named (issue 19): they may mute and remove members. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('room_moderators', (t) => {
    t.uuid('room_id').notNullable().references('rooms.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['room_id', 'user_id']);
    t.index(['user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('room_moderators');
}
