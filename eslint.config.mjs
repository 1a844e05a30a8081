// ESLint flat config. The one house rule it enforces above all: the core never imports 'vscode'.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { LAZY_REQUIRE_PATTERNS } from './esbuild-config.mjs';

const vscodePath = {
  name: 'vscode',
  message: "The core is host-agnostic: only src/host (and src/extension.ts) may import 'vscode'.",
};
const noVscode = { 'no-restricted-imports': ['error', { paths: [vscodePath] }] };

// Layers that may reach only their own files and one door: webviews see the protocol (which
// re-exports the shared vocabulary), the store sees the ports it implements.
const webviewLayer = {
  'no-restricted-imports': [
    'error',
    {
      paths: [vscodePath],
      patterns: [
        {
          regex: '^(\\.\\./)+src/(?!protocol/)',
          message: 'A webview imports only src/protocol (and its own files): add what it needs to the protocol.',
        },
      ],
    },
  ],
};
const storeLayer = {
  'no-restricted-imports': [
    'error',
    {
      paths: [vscodePath],
      patterns: [
        {
          regex: '^\\.\\./(?!core/ports$)',
          message: 'The store imports only the ports it implements (src/core/ports) and its own files.',
        },
      ],
    },
  ],
};

// The team database adapter: the team port it implements, the ports, its own files (and pg).
const teamLayer = {
  'no-restricted-imports': [
    'error',
    {
      paths: [vscodePath],
      patterns: [
        {
          regex: '^\\.\\./(?!core/ports$|core/team/team-store$|core/team/team-approvals$)',
          message:
            'The team adapter imports only its ports (core/team/team-store, team-approvals, core/ports) and its own files.',
        },
      ],
    },
  ],
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      '.vscode-test/**',
      'test-results/**',
      'test/fixtures/workspaces/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // require() only for a module loaded on first use (src/core/lazy-module.ts).
      '@typescript-eslint/no-require-imports': ['error', { allow: LAZY_REQUIRE_PATTERNS }],
      eqeqeq: ['error', 'smart'],
      'no-console': 'off',
    },
  },
  {
    rules: { 'max-lines': ['error', { max: 600 }] },
  },
  // Written by `npm run schemas` from the zod schemas, never by hand: as long as the protocol is.
  { files: ['src/protocol/generated/**'], rules: { 'max-lines': 'off' } },
  {
    files: ['src/core/**', 'src/node/**', 'src/cli/**', 'src/protocol/**'],
    rules: noVscode,
  },
  { files: ['webview/**'], rules: webviewLayer },
  { files: ['src/store/**'], rules: storeLayer },
  { files: ['src/team/**'], rules: teamLayer },
  {
    files: ['**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['esbuild.mjs', 'esbuild-config.mjs', 'eslint.config.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['test/fixtures/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly' } },
  },
);
