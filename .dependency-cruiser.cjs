/**
 * Import rules ESLint cannot check, read by dependency-cruiser (`npm run lint`): no import cycle of any
 * kind, type-only imports included. ESLint's import-x/no-cycle leaves type-only imports out, but a
 * cycle of types still ties files together for a reader and for the layering (docs/ARCHITECTURE.md).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'Each module has one place in the layering: a cycle, even of types, is where a rule stops having one home.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // Type-only imports count: they are dropped from the JavaScript, not from the design.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', 'dist'] },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs'] },
  },
};
