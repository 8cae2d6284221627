import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { consoleApiTypes, TYPES_FILE } from './openapi-types.ts';

describe("the console's API types", () => {
  it('are those of the OpenAPI document as it is now (run `npm run console:types` after changing the API)', async () => {
    expect(await readFile(TYPES_FILE, 'utf8')).toBe(await consoleApiTypes());
  }, 60_000);
});
