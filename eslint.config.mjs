import { readFileSync } from 'node:fs';
import tseslint from 'typescript-eslint';

/**
 * The layers of ARCHITECTURE.md and docs/architecture.md: each top-level folder may import only the folders listed
 * for it (type-only imports are allowed across, as Temporal's samples import activities into workflows). A file
 * that crosses a rule fails `npm test`.
 */
const LAYERS = {
  domain: { may: [], why: 'domain/ is pure: it imports only domain/' },
  lib: { may: ['domain'], why: 'lib/ is infrastructure: it imports only domain/' },
  db: { may: ['domain'], why: 'db/ imports only domain/ (its row types are domain records)' },
  chains: { may: ['domain', 'lib'], why: 'chains/ talks to networks: it imports domain/ and lib/ only' },
  services: { may: ['domain', 'lib', 'db', 'chains', 'workflows'], why: 'services/ never imports api/, activities/ or workers/' },
  api: { may: ['domain', 'lib', 'db', 'services'], why: 'api/ is Koa over services/: no chains/, workflows/, activities/ or workers/' },
  activities: { may: ['domain', 'lib', 'db', 'chains', 'services'], why: 'activities/ are thin adapters over services/, db/, chains/ and lib/; never api/' },
  workflows: { may: ['domain'], why: 'workflows/ import only domain/ and each other (activities as types only)' },
  workers: { may: ['domain', 'lib', 'db', 'chains', 'services', 'activities', 'workflows'], why: 'workers/ wire activities and workflows; never api/' },
  scripts: { may: ['domain', 'lib', 'db', 'chains', 'services', 'workflows'], why: 'scripts/ are the operator\'s commands over services/; never api/, activities/ or workers/' },
};
/**
 * What the product never imports: tools/ (devnets, the dev stack, benchmarks: devDependencies, absent from the
 * production install) and test/.
 */
const DEV_ONLY = ['tools', 'test'];
const ALL = [...Object.keys(LAYERS), ...DEV_ONLY];
/** Packages the production install (`npm ci --omit=dev`) lacks: no product folder imports them, not even for types. */
const DEV_PACKAGES = Object.keys(JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).devDependencies)
  .filter((name) => !name.startsWith('@types/'))
  .map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));

/** Bare packages a folder may not import at all (it must stay free of what they bring). */
const FORBIDDEN_PACKAGES = {
  domain: { pattern: '^(?!\\./)', why: 'domain/ is pure TypeScript: no packages, no Node built-ins, only other domain/ modules' },
  workflows: {
    pattern: '^(?!\\.|@temporalio/(workflow|common)$)',
    why: 'workflows/ run in the deterministic sandbox: only @temporalio/workflow, @temporalio/common and relative imports',
  },
};

const layerRules = Object.entries(LAYERS).map(([layer, { may, why }]) => {
  const banned = ALL.filter((other) => other !== layer && !may.includes(other));
  const patterns = [
    { regex: `^(\\.\\./)+(${banned.filter((b) => !DEV_ONLY.includes(b)).join('|')})(/|$)`, message: why, allowTypeImports: true },
    { regex: `^(\\.\\./)+(${DEV_ONLY.join('|')})(/|$)`, message: `${layer}/ is the product: it never imports the dev tools (tools/) or the tests`, allowTypeImports: false },
    { regex: `^(${DEV_PACKAGES.join('|')})(/|$)`, message: `${layer}/ is the product: it never imports a devDependency (absent from the production install)`, allowTypeImports: false },
  ];
  const extra = FORBIDDEN_PACKAGES[layer];
  if (extra) patterns.push({ regex: extra.pattern, message: extra.why, allowTypeImports: layer === 'workflows' });
  return { files: [`${layer}/**/*.ts`], rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] } };
});

/**
 * The dashboard and the pay page's wallet script are browser bundles (Vite, web/dashboard, web/pay): they take the
 * API's schemas and the domain for their types only, which the build erases, so they ship no zod and no server code.
 */
const dashboardRule = {
  files: ['web/dashboard/src/**/*.{ts,tsx}', 'web/pay/src/**/*.ts'],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^((\\.\\./){3,}(${ALL.join('|')})(/|$)|zod(/|$))`,
            message: 'a browser bundle imports the API and the domain for their types only (import type): it carries no server code',
            allowTypeImports: true,
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'var/**', 'web/**/*.js', 'web/dashboard/vite.config.mjs', 'web/pay/vite.config.mjs', 'dist/**', 'tools/devnets/evm/hardhat.config.js', 'eslint.config.mjs'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    // The JavaScript that Node loads before (or beside) tsx: the loader, and a worker thread's test fixture.
    languageOptions: { parserOptions: { projectService: { allowDefaultProject: ['lib/tsx-main-thread.mjs', 'test/support/thread-source-maps.mjs'] }, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  ...layerRules,
  dashboardRule,
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='Date'][property.name='now']", message: 'Workflows must be deterministic: no Date.now().' },
        { selector: "MemberExpression[object.name='Math'][property.name='random']", message: 'Workflows must be deterministic: no Math.random().' },
      ],
    },
  },
);
