import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Before an uploaded avatar file is deleted, the API checks that no other user still points at it
  // (files are named by content hash, so two users can share one).
  await knex.raw(
    "CREATE INDEX users_uploaded_avatar_url ON users (avatar_url) WHERE avatar_url LIKE '/avatars/u/%'",
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS users_uploaded_avatar_url');
}
