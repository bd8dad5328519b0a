import { buildDashboard } from '../lib/dashboard-build';

/** `npm run build:dashboard` (and npm's `prepare` on install): builds web/dashboard into dist/dashboard. */
buildDashboard().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
