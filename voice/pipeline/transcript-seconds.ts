/** A stream position as a transcript shows it: seconds to the millisecond. */
export const transcriptSeconds = (seconds: number): number => Math.round(seconds * 1000) / 1000;
