import { describe, expect, it } from 'vitest';
import { databaseUnavailable } from './unavailable.ts';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code });

describe('databaseUnavailable()', () => {
  it.each([
    ['a statement past statement_timeout', pgError('57014')],
    ['a lock not granted in time', pgError('55P03')],
    ['no connection slot left', pgError('53300')],
    ['a server starting or stopping', pgError('57P03')],
    ['a connection ended by the server', pgError('57P01')],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    [
      'knex: no free connection in time',
      Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' }),
    ],
    ['node-postgres: no answer in time', new Error('Query read timeout')],
    ['node-postgres: no connection in time', new Error('Connection terminated due to connection timeout')],
    ['one of those as a cause', new Error('could not list', { cause: pgError('57014') })],
  ])('is true for %s', (_, error) => {
    expect(databaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', pgError('23505')],
    ['a syntax error', pgError('42601')],
    ['an error of ours', new Error('insert returned no row')],
    ['a string', 'Query read timeout'],
    ['null', null],
  ])('is false for %s', (_, error) => {
    expect(databaseUnavailable(error)).toBe(false);
  });
});
