import path from 'node:path';

/** Where the dashboard (web/dashboard) is built to: git-ignored, served at `/dashboard` (tools/build-dashboard.ts builds it). */
export const DASHBOARD_BUILD_DIR = path.resolve(__dirname, '../dist/dashboard');
