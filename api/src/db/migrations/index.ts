/**
 * Every migration, in order. Listed here rather than discovered on disk so the same
 * code runs under tsx, vitest and a bundler alike.
 */
import type { Knex } from 'knex';
import * as accounts from './20261121130000_accounts.ts';
import * as friends from './20261121140000_friends.ts';
import * as searchIndexes from './20261121143000_search_indexes.ts';
import * as avatars from './20261121150000_avatars.ts';
import * as profileTheme from './20261201090000_profile_theme.ts';
import * as calls from './20261201100000_calls.ts';
import * as rooms from './20261210090000_rooms.ts';
import * as pushSubscriptions from './20261215090000_push_subscriptions.ts';
import * as roomNameGraphemes from './20261226090000_room_name_graphemes.ts';
import * as voiceSettings from './20261227090000_voice_settings.ts';
import * as roomModerators from './20270105090000_room_moderators.ts';
import * as loadtestAccounts from './20270110090000_loadtest_accounts.ts';
import * as roomLoudest from './20270115090000_room_loudest.ts';
import * as roomStage from './20270120090000_room_stage.ts';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const MIGRATIONS: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['20261121130000_accounts', accounts],
  ['20261121140000_friends', friends],
  ['20261121143000_search_indexes', searchIndexes],
  ['20261121150000_avatars', avatars],
  ['20261201090000_profile_theme', profileTheme],
  ['20261201100000_calls', calls],
  ['20261210090000_rooms', rooms],
  ['20261215090000_push_subscriptions', pushSubscriptions],
  ['20261226090000_room_name_graphemes', roomNameGraphemes],
  ['20261227090000_voice_settings', voiceSettings],
  ['20270105090000_room_moderators', roomModerators],
  ['20270110090000_loadtest_accounts', loadtestAccounts],
  ['20270115090000_room_loudest', roomLoudest],
  ['20270120090000_room_stage', roomStage],
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
