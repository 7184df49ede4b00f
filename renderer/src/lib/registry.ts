import type { SearchResult } from '../api/types.js';

/** The services to show: every one but the image models, which have their own table with prices. */
export const listedServices = (result: SearchResult) => result.results.filter((service) => service.source !== 'model-registry');

/** A URL in parts that may wrap after their separators (`/`, `?`, `&`), never inside a word. */
export const urlBreaks = (url: string): string[] => url.split(/(?<=[/?&])/);
