import { describe, expect, it } from 'vitest';
import { addedLines } from '../../src/verdicts/forges.js';

describe('addedLines: the lines a pull request adds, from a unified diff hunk', () => {
  it('counts context and added lines of the new file, not removed ones, across hunks', () => {
    const patch = '@@ -1,3 +1,4 @@\n keep\n-old\n+new one\n+new two\n keep\n@@ -20,2 +21,2 @@\n context\n-gone\n+here\n\\ No newline at end of file';
    expect([...addedLines(patch)]).toEqual([2, 3, 22]);
  });
});
