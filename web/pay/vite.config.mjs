import { defineConfig } from 'vite';

/**
 * The hosted page's wallet script (src/wallet.ts and the wallet libraries it uses), bundled into one file served by
 * the API at /pay/assets/wallet.js: from Payrail's origin, under the page's `script-src 'self'`.
 */
export default defineConfig({
  root: import.meta.dirname,
  logLevel: 'warn',
  // A library build keeps `process.env.NODE_ENV` as written; the browser has no `process` (the Solana libraries read it).
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: '../../dist/pay',
    emptyOutDir: true,
    target: 'es2022',
    lib: { entry: 'src/wallet.ts', formats: ['es'], fileName: () => 'wallet.js' },
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
