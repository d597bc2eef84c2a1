import type { Knex } from 'knex';

/**
 * How many voices each member of a room hears at once, the loudest (protocol's FORWARDING);
 * rooms made before it get the default. The bounds are written out, not imported: a migration
 * keeps doing what it did when the constants change.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('rooms', (t) => {
    t.smallint('loudest').notNullable().defaultTo(3);
  });
  await knex.raw('ALTER TABLE rooms ADD CONSTRAINT rooms_loudest CHECK (loudest BETWEEN 1 AND 8)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('rooms', (t) => {
    t.dropColumn('loudest');
  });
}
