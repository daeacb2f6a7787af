/** How an import fails: one message that says where in the file, never a stack trace. */
export class ImportError extends Error {
  name = 'ImportError';
}

/** `err` as an ImportError placed at `where`; one already placed keeps its place. */
export function placedError(err: unknown, where: string): ImportError {
  // Already placed (a batch's error names where its records end, not the record read since).
  if (err instanceof ImportError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/unique|duplicate key/i.test(message)) {
    return new ImportError(
      `${where}: conflicts with an existing record (${/email/i.test(message) ? 'email' : 'unique field'} already in use)`,
    );
  }
  return new ImportError(`${where}: ${message}`);
}
