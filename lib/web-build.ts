import path from 'node:path';

/** Where the dashboard (web/dashboard) is built to: git-ignored, served at `/dashboard` (tools/build-web.ts builds it). */
export const DASHBOARD_BUILD_DIR = path.resolve(__dirname, '../dist/dashboard');

/** Where the hosted page's wallet script (web/pay/src) is built to: git-ignored, served at `/pay/assets/wallet.js`. */
export const PAY_BUILD_DIR = path.resolve(__dirname, '../dist/pay');
