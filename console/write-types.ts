import { writeFile } from 'node:fs/promises';
import { consoleApiTypes, TYPES_FILE } from './openapi-types.ts';

/** `npm run console:types`: regenerates console/src/api-types.d.ts from the OpenAPI document. */
await writeFile(TYPES_FILE, await consoleApiTypes());
console.log(`wrote ${TYPES_FILE.pathname}`);
