/**
 * Turning a zod failure into `path: message` lines, so an error names the bad field.
 * Owns: that formatting. Imports zod types only; shared by every area that validates input.
 */
import type { z } from 'zod';

export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.length === 0 ? '$' : `$.${issue.path.map(String).join('.')}`;
    return `${path}: ${issue.message}`;
  });
}
