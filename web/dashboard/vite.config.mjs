import { defineConfig } from 'vite';

/** The merchant dashboard: Preact with the automatic JSX runtime, served by the API at /dashboard/. */
export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../../dist/dashboard',
    emptyOutDir: true,
    target: 'es2022',
    // No inline scripts or data: URLs for scripts, so the CSP can stay strict.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
