// @ts-check
const { builtinModules } = require('node:module');
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const prettier = require('eslint-config-prettier');
const globals = require('globals');

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/** Only api/ (and its tests) imports api/: the HTTP layer calls the domain, never the reverse. */
const apiLayer = {
  // A relative path into api/ (not a package such as @opentelemetry/api).
  regex: '^(\\.\\.?/)+(.*/)?api(/.*)?$',
  message: 'Only api/ imports api/: move what is shared into domain/.',
};

/**
 * Outside workflow code nothing loads workflow code: the API process starts workflows by their type
 * name, and the worker loads its bundle. Types are fine, and so is the workflows' contract with
 * the rest (ids, signals, queries and updates in a definitions.ts, search attributes) and the
 * campaign settings vocabulary (zod and luxon only) that the API and the workflow's Update validator share.
 */
const workflowCode = {
  regex: '(^|/)workflows(/(?!(([a-z-]+/)?definitions|search-attributes)$).*)?$',
  allowTypeImports: true,
  message:
    'Only workflow code imports workflow code: import types, or a definitions.ts and search-attributes.ts, and start workflows by type name.',
};

const repositoryAccess =
  'Reads and writes are statements of a repository in entities/repositories/: add one there and call it.';

/** Direct database access, outside entities/repositories/ (Temporal's handle.query is not SQL). */
const databaseAccess = [
  {
    selector: 'CallExpression[callee.property.name=/^(getRepository|createQueryBuilder)$/]',
    message: repositoryAccess,
  },
  {
    selector:
      'CallExpression[callee.property.name=/^(query|transaction)$/][callee.object.name=/^(dataSource|manager|entityManager|queryRunner)$/]',
    message: repositoryAccess,
  },
  {
    selector:
      'CallExpression[callee.property.name=/^(query|transaction)$/][callee.object.property.name=/^(dataSource|manager)$/]',
    message: repositoryAccess,
  },
  { selector: "MemberExpression[property.name='manager']", message: repositoryAccess },
];

const routeDataAccess =
  'API routes hold no database access: call a domain use case, which uses the repositories in entities/repositories/.';

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
      globals: { ...globals.node },
    },
    rules: {
      // Forgetting to await an activity, a query or a workflow call loses work silently.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Everything else of the service (entities, activities, workers, platform, telephony, voice,
    // scripts): neither the HTTP layer nor workflow code.
    files: ['**/*.ts'],
    ignores: ['api/**', 'test/**', 'domain/**', 'workflows/**', 'bench/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [apiLayer, workflowCode] }] },
  },
  {
    // The API process starts workflows by their type name.
    files: ['api/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [workflowCode] }] },
  },
  {
    // The domain knows no HTTP: no Koa, no api/, not even its types. The domain owns the shapes it
    // answers and takes (domain/*/types.ts); the API's schemas document them and are checked against them.
    files: ['domain/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'koa', message: 'The domain knows no HTTP framework.' }],
          patterns: [
            { group: ['@koa/*', 'koa-*'], message: 'The domain knows no HTTP framework.' },
            { ...apiLayer, message: 'The domain does not import the HTTP layer; the API imports the domain.' },
            workflowCode,
            {
              regex: '^(\\.\\./)+activities(/.*)?$',
              message: 'The domain does not import activities/: activities call the domain.',
            },
          ],
        },
      ],
    },
  },
  {
    // Routes parse, authorize, call the domain and answer: reads, writes and transactions are the
    // domain's, over the repositories of entities/repositories/.
    files: ['api/routes/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'typeorm', message: routeDataAccess }],
          patterns: [
            workflowCode,
            { regex: '^(\\.\\./)+entities(/.*)?$', allowTypeImports: true, message: routeDataAccess },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(transaction|query|getRepository|createQueryBuilder)$/]',
          message: routeDataAccess,
        },
        { selector: "MemberExpression[property.name='manager']", message: routeDataAccess },
      ],
    },
  },
  {
    // The domain, activities, telephony and voice reach PostgreSQL through the repositories only.
    files: ['domain/**/*.ts', 'activities/**/*.ts', 'telephony/**/*.ts', 'voice/**/*.ts', 'workers/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...databaseAccess] },
  },
  {
    files: ['workflows/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [apiLayer] }] },
  },
  {
    // Workflow code is replayed: it must be deterministic and must not reach the outside world.
    files: ['workflows/**/*.ts', 'bench/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Node builtins are not allowed in workflow code.' })),
          patterns: [
            {
              // activities/ from any depth (../activities, ../../activities/x); not a workflow's own ./activities.
              regex: '^(\\.\\./)+activities(/.*)?$',
              allowTypeImports: true,
              message: 'Workflows import activities as types only (proxyActivities).',
            },
            {
              group: ['@temporalio/client', '@temporalio/worker', '@temporalio/activity', 'typeorm', 'pg', 'koa'],
              message: 'Workflow code runs in the sandbox: use @temporalio/workflow and call activities instead.',
            },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        ...['process', 'require', 'Buffer', '__dirname', '__filename', 'fetch', 'crypto', 'performance'].map(
          (name) => ({ name, message: `${name} is not deterministic or not available in workflow code.` }),
        ),
        { name: 'setInterval', message: 'Use sleep() or condition() with a timeout in workflow code.' },
        { name: 'setImmediate', message: 'Use sleep() or condition() in workflow code.' },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // supertest bodies are `any` by design; the assertions check their shape.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'commonjs',
      globals: { ...globals.node },
      parserOptions: { projectService: false, project: null },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
