import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
// Translations live in /locales at the repository root, outside the web package.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const apiTarget = 'http://localhost:8080';

export default defineConfig({
  root: webRoot,
  // No @vitejs/plugin-react: esbuild's automatic runtime is all the JSX transform needs.
  esbuild: { jsx: 'automatic' },
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
    },
  },
});
