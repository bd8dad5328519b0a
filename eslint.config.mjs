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
};
const ALL = Object.keys(LAYERS);

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
  const patterns = [{ regex: `^(\\.\\./)+(${banned.join('|')})(/|$)`, message: why, allowTypeImports: true }];
  const extra = FORBIDDEN_PACKAGES[layer];
  if (extra) patterns.push({ regex: extra.pattern, message: extra.why, allowTypeImports: layer === 'workflows' });
  return { files: [`${layer}/**/*.ts`], rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] } };
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'var/**', 'web/**/*.js', 'web/dashboard/vite.config.mjs', 'dist/**', 'chains/devnet/hardhat.config.js', 'eslint.config.mjs'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  ...layerRules,
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
