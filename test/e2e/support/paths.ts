import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
export const corpus = path.resolve(repoRoot, 'test/fixtures/corpus');
export const screenshots = path.join(repoRoot, 'test/e2e/screenshots');
