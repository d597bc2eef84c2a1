/**
 * Every migration, in order. Listed here rather than discovered on disk so the same
 * code runs under tsx, vitest and a bundler alike.
 */
import type { Knex } from 'knex';
import * as accounts from './20261121130000_accounts.ts';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const MIGRATIONS: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['20261121130000_accounts', accounts],
];

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => MIGRATIONS.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const found = MIGRATIONS.find(([n]) => n === name);
    if (!found) throw new Error(`Unknown migration ${name}`);
    return found[1];
  },
};
