/**
 * Import boundaries (README, "Architecture"), checked in `npm test` by
 * test/boundaries.test.ts. Tests are exempt: a test may reach anything it tests with.
 *   shared/  the ground: imports nothing of ingest/, billing/ or app/
 *   ingest/  the ingest tier (HTTP edge and sink): nothing of billing/ or app/
 *   billing/ the billing core: nothing of ingest/ or app/; its domain folders nothing of billing/api/
 *   billing/rating/ pure: no I/O (databases, network, files, NATS)
 *   app/     the composition root: imported by bin/ (and tests) only
 */
const TESTS = '(\\.test\\.ts$|^test/|^bench/)';
module.exports = {
  forbidden: [
    { name: 'shared-is-ground', severity: 'error', comment: 'shared/ imports nothing of ingest/, billing/ or app/', from: { path: '^shared/', pathNot: TESTS }, to: { path: '^(ingest|billing|app)/' } },
    { name: 'ingest-not-billing', severity: 'error', comment: 'the ingest tier does not reach into billing/ or app/', from: { path: '^ingest/', pathNot: TESTS }, to: { path: '^(billing|app)/' } },
    { name: 'billing-not-ingest', severity: 'error', comment: 'the billing core does not reach into ingest/ or app/', from: { path: '^billing/', pathNot: TESTS }, to: { path: '^(ingest|app)/' } },
    { name: 'domain-not-api', severity: 'error', comment: "billing's domain folders do not import its HTTP adapters (billing/api/)", from: { path: '^billing/(?!api/)', pathNot: TESTS }, to: { path: '^billing/api/' } },
    {
      name: 'rating-is-pure',
      severity: 'error',
      comment: 'the rating engine does no I/O',
      from: { path: '^billing/rating/', pathNot: TESTS },
      to: { path: '(^|/)(node_modules/(pg|kysely|@clickhouse|chdb|@nats-io|uWebSockets\\.js|@grpc)/|^shared/(db|clickhouse|nats|http)/)|^(fs|net|http|https|child_process|dgram)$', dependencyTypes: ['npm', 'npm-dev', 'core', 'local'] },
    },
    { name: 'app-is-the-root', severity: 'error', comment: 'nothing imports the composition root but bin/ and tests', from: { path: '^(shared|ingest|billing|sdk)/', pathNot: TESTS }, to: { path: '^app/' } },
    { name: 'no-test-code-in-source', severity: 'error', comment: 'source does not import test helpers', from: { path: '^(shared|ingest|billing|app)/', pathNot: TESTS }, to: { path: '^test/' } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|sdk/python|\\.data)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.mjs', '.cjs'] },
  },
};
