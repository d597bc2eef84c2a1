/**
 * The yardstick of bench:api: Koa and @koa/router with nothing else, answering GET
 * /api/auth/me with a user of the same shape as the API's. Run as its own process, as the
 * API is, so both share the machine with the load generator alike.
 * Usage: node --import tsx bench/src/bareKoa.ts PORT
 */
import Router from '@koa/router';
import Koa from 'koa';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) throw new Error('usage: bareKoa.ts PORT');

// What the API's /me answers for a bench account, field for field.
const user = {
  id: '0b6e1f3c-9a52-4a8e-b8f1-2f4d6c1e7a90',
  username: 'bench_mabc1234',
  email: 'bench_mabc1234@bench.test',
  display_name: null,
  avatar_url: null,
  language: 'ru',
  is_online: true,
  last_seen: null,
  isInCall: false,
  onboarding_completed: false,
  theme: 'dark',
};

const router = new Router({ prefix: '/api' });
router.get('/health', (ctx) => {
  ctx.body = { ok: true };
});
router.get('/auth/me', (ctx) => {
  ctx.body = { user };
});
const app = new Koa().use(router.routes()).use(router.allowedMethods());
const server = app.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
