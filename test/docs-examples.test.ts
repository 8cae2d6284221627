import { describe, expect, it } from 'vitest';
import { answerProblems, commandsOf, examplesOf, fill, remember, shapeProblems, type Seen } from './docs-examples.ts';

describe('reading the docs examples (test/docs-examples.ts)', () => {
  it('finds fenced blocks, indented ones too, with the marker on the line before', () => {
    const md = ['text', '<!-- not-run: starts Tally -->', '', '```sh', 'npm start', '```', '- item', '  ```js', '  x()', '  ```', '<!-- run: curl only; CLI -->', '```sh', 'curl a', '```'].join('\n');
    expect(examplesOf('a.md', md)).toEqual([
      { file: 'a.md', line: 4, lang: 'sh', text: 'npm start', marker: { kind: 'not-run', reason: 'starts Tally' } },
      { file: 'a.md', line: 8, lang: 'js', text: 'x()', marker: undefined },
      { file: 'a.md', line: 12, lang: 'sh', text: 'curl a', marker: { kind: 'curl-only', reason: 'CLI' } },
    ]);
  });

  it('splits commands over backslashes and open quotes, and reads the expectation after each', () => {
    const block = [
      `curl -X POST x -H 'a: b' \\`,
      `  -d '{"name": "x",`,
      `       "type": "y"}'`,
      `# 201 {"id":"ai_…","name":"x"}`,
      `# a plain comment`,
      `curl y   # inline comment, with a quote: don't`,
      `curl z`,
      `# 204`,
    ].join('\n');
    expect(commandsOf(block, 10)).toEqual([
      { text: `curl -X POST x -H 'a: b' \\\n  -d '{"name": "x",\n       "type": "y"}'`, line: 11, expect: { status: 201, shape: '{"id":"ai_…","name":"x"}' } },
      { text: `curl y   # inline comment, with a quote: don't`, line: 16, expect: { status: undefined, shape: undefined } },
      { text: 'curl z', line: 17, expect: { status: 204, shape: undefined } },
    ]);
  });

  it('fills placeholders from the ids and secrets answered so far, and fails on one never answered', () => {
    const seen: Seen = { ids: new Map(), agentSecret: undefined };
    remember(seen, { agent_instance: { id: 'ai_01abcdefghijk', account_id: 'acct_01abcdefghij', secret: 'as_secret' }, total: 1 });
    expect(fill('curl localhost:8080/x/ai_.../acct_… -d \'{"secret":"<AGENT_SECRET>","a":"<AGENT_ID>"}\'', seen, 'http://127.0.0.1:9')).toBe(
      'curl 127.0.0.1:9/x/ai_01abcdefghijk/acct_01abcdefghij -d \'{"secret":"as_secret","a":"ai_01abcdefghijk"}\'',
    );
    expect(fill('export KEY=sk_api_...', seen, 'http://h')).toBe('export KEY=sk_api_...');
    expect(() => fill('curl x/inv_...', seen, 'http://h')).toThrow(/inv_/);
  });

  it('compares an answer with what the doc shows', () => {
    const answer = { id: 'ai_1', name: 'sdr-bot', created_at: '2026-11-26T12:00:00.000Z', nested: { secret: 'as_1' } };
    expect(shapeProblems('{"id":"ai_01…","name":"sdr-bot","secret":"as_…","created_at":"2026-11-21T10:00:00.000Z",…}', answer)).toEqual([]);
    expect(shapeProblems('{"name":"other","colour":"red"}', answer)).toEqual(['`name` is ["sdr-bot"], the doc shows "other"', 'no `colour` in the answer']);
    expect(answerProblems({ a: 1, b: [{ id: 'evt_…' }] }, { a: 1, b: [{ id: 'evt_123' }] })).toEqual([]);
    expect(answerProblems({ a: 1, b: [{ id: 'x' }] }, { a: 2, b: [], c: 0 })).toEqual(['$.a: 1 in the doc, 2 in the answer', '$.b: 1 items in the doc, [] in the answer', '$.c: in the answer, not in the doc']);
  });
});
