// Writes spec/errors/chio-error-registry.v1.json from the built catalogue (run after `npm run build`).
import { writeFileSync } from 'node:fs';
import { buildErrorRegistry } from '../dist/src/error-registry.js';

writeFileSync('spec/errors/chio-error-registry.v1.json', `${JSON.stringify(buildErrorRegistry(), null, 2)}\n`);
