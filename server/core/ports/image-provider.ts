/** The image provider port: where generation work is forwarded (outside this machine). */
export interface ImageRequest {
  prompt: string;
  modelId: string;
  resolution: '1k' | '2k' | '4k';
}

export interface ImageProvider {
  /** Resolves with the URL of the finished image; throws when the provider fails. */
  generate(request: ImageRequest): Promise<{ url: string }>;
}
