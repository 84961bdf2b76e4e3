// Lint rules for the whole repo. Generated files are checked by `svc build --check`, not by lint.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './lint/layers.js';

/** The runtime's feature folders: an app loads the ones it uses, so the kernel must not import them. */
const RUNTIME_FEATURES = [
  'runtime/auth',
  'runtime/tenancy',
  'runtime/edge',
  'runtime/mcp',
  'runtime/idempotency',
  'runtime/stores',
  'runtime/data',
  'runtime/adapters',
  'runtime/mail',
  'runtime/service',
  'runtime/files',
];

/** What the kernel may not import: the features, and the root entry that re-exports them all. */
const KERNEL_FORBIDS = [...RUNTIME_FEATURES, 'runtime/index.ts'];

/**
 * Who may import whom (docs/design.md, "Layers"): shared ← spec ← generator ← cli, and shared ←
 * runtime, whose kernel (app, http, config) sits below its features. `generated/modules` is svckit's own
 * compiled catalog, which the runtime and the generator read.
 */
const LAYER_ZONES = [
  {
    layer: 'shared',
    forbid: ['spec', 'generator', 'make', 'runtime', 'cli', 'src', 'generated'],
    reason: 'shared/ holds the pure rules every layer reads, so it reads none of them',
  },
  {
    layer: 'spec',
    forbid: ['generator', 'make', 'runtime', 'cli', 'src', 'generated'],
    reason: 'the spec loader builds on shared/ only',
  },
  {
    layer: 'generator',
    forbid: ['make', 'runtime', 'cli', 'src'],
    reason: 'the generator turns the IR into files from spec/ and shared/ only',
  },
  {
    layer: 'make',
    forbid: ['runtime', 'cli', 'src'],
    reason:
      'the scaffolding writes files from its templates, the spec loader and the generator, never the runtime',
  },
  {
    layer: 'runtime',
    forbid: ['spec', 'generator', 'make', 'cli', 'src', 'templates', 'bin', 'generated'],
    allow: ['generated/modules'],
    reason:
      "the runtime reads shared/ and svckit's generated/modules only, never the loader or the generator",
  },
  {
    layer: 'runtime/app',
    forbid: KERNEL_FORBIDS,
    reason: 'the app kernel knows no feature; features plug in through plugins, buckets and the container',
  },
  {
    layer: 'runtime/http',
    forbid: KERNEL_FORBIDS,
    reason: 'the HTTP pipeline knows no feature; features plug in through plugins, buckets and the container',
  },
  {
    layer: 'runtime/core.ts',
    forbid: KERNEL_FORBIDS,
    // adapterPlugin loads only the adapter it is asked for, when asked.
    allow: ['runtime/adapters/by-name.ts'],
    reason: 'the svckit/core entry is the kernel alone, so an app that imports it loads no feature',
  },
  {
    layer: 'runtime/config',
    forbid: KERNEL_FORBIDS,
    reason: 'option checks and config reading are a low layer every feature uses',
  },
  {
    layer: 'runtime/log',
    forbid: KERNEL_FORBIDS,
    reason: 'the logger seam is a low layer the kernel and every feature write through',
  },
];

export default tseslint.config(
  {
    ignores: ['node_modules/**', 'dist/**', '**/generated/**', '.svc/**', 'coverage/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    plugins: { layers: layersPlugin },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'layers/imports': ['error', { zones: LAYER_ZONES }],
    },
  },
);
