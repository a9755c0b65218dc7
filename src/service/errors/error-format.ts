/** Reference A routes answer Format A (typed) errors, Reference B routes Format B. */
export type ErrorFormat = 'A' | 'B';
