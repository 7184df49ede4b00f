import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// The dashboard: built into renderer/dist and served by `coffer serve` at `/`.
export default defineConfig(({ command }) => {
  // What ships is React's production build, whatever NODE_ENV the shell has: Vite takes it from the
  // environment (a terminal's NODE_ENV=development, or Vitest's test through a checkout's `npx coffer`,
  // which builds it) and builds a development dashboard under anything but production. Vite reads it
  // once the config is loaded (only a renderer/.env* NODE_ENV=development, of which there is none,
  // would still win). `npm run dev:dashboard` serves the development build.
  if (command === 'build') process.env.NODE_ENV = 'production';
  return {
    root: fileURLToPath(new URL('.', import.meta.url)),
    plugins: [react()],
    build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022' },
    server: { proxy: { '/v1': 'http://127.0.0.1:7402', '/login': 'http://127.0.0.1:7402' } },
  };
});
