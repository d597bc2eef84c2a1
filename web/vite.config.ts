import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { manualChunks, vendorStandsAlone } from './build/chunks.ts';
import { precompress } from './build/precompress.ts';
import { preloadAppChunk } from './build/preloadAppChunk.ts';

const webRoot = fileURLToPath(new URL('.', import.meta.url));
// Translations live in /locales at the repository root, outside the web package.
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const apiTarget = 'http://localhost:8080';

export default defineConfig({
  root: webRoot,
  // No @vitejs/plugin-react: esbuild's automatic runtime is all the JSX transform needs.
  esbuild: { jsx: 'automatic' },
  // The start-up script (src/main.tsx) imports the app (src/app/start.tsx) dynamically;
  // index.html asks for the app's chunks right away all the same.
  plugins: [preloadAppChunk(/[\\/]src[\\/]app[\\/]start\.tsx$/), vendorStandsAlone(), precompress()],
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
      // A few chunks for the first screen, not one per set of shared modules (build/chunks.ts).
      output: { manualChunks: manualChunks() },
    },
  },
});
