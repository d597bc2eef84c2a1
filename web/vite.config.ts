import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precompress } from './build/precompress.ts';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
// Translations live in /locales at the repository root, outside the web package.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const apiTarget = 'http://localhost:8080';
/** What every page needs, the sign-in page included: React, the router and i18next. */
const VENDOR =
  /[\\/]node_modules[\\/](?:react|react-dom|scheduler|react-router|react-router-dom|i18next|react-i18next)[\\/]/;

export default defineConfig({
  root: webRoot,
  // No @vitejs/plugin-react: esbuild's automatic runtime is all the JSX transform needs.
  esbuild: { jsx: 'automatic' },
  plugins: [precompress()],
  server: {
    port: 5173,
    fs: { allow: [repoRoot] },
    proxy: {
      '/api': { target: apiTarget, changeOrigin: true },
      '/ws': { target: apiTarget, changeOrigin: true, ws: true },
      // Uploaded avatars are served by the API; stock ones come from web/public.
      '/avatars/u': { target: apiTarget, changeOrigin: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    rollupOptions: {
      onwarn(warning, warn) {
        // react-router's "use client" directives are meaningless in a client-only bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE' || warning.code === 'SOURCEMAP_ERROR') return;
        warn(warning);
      },
      output: {
        // The libraries change far less often than the app: in a chunk of their own they stay
        // cached across releases, and they download alongside the app's entry.
        manualChunks(id) {
          if (VENDOR.test(id)) return 'vendor';
          return undefined;
        },
      },
    },
  },
});
