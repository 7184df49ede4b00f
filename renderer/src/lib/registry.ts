/** A URL in parts that may wrap after their separators (`/`, `?`, `&`), never inside a word. */
export const urlBreaks = (url: string): string[] => url.split(/(?<=[/?&])/);
