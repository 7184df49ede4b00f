import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// The dashboard: built into renderer/dist and served by `coffer serve` at `/`.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022' },
  server: { proxy: { '/v1': 'http://127.0.0.1:7402', '/login': 'http://127.0.0.1:7402' } },
});
