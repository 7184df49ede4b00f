/**
 * An example listing: its endpoint is on the reserved `.example` domain, so no API answers there
 * (the registry lists them on the embedded chain only, to try policies with).
 */
const isExample = (endpoint: string | undefined) => endpoint !== undefined && /^[A-Z]+ https?:\/\/[^/]*\.example(?=[/:?]|$)/.test(endpoint);

/** The badge an example listing carries wherever it is listed (the registry, a policy's services). */
export function ExampleTag({ endpoint }: { endpoint: string | undefined }) {
  if (!isExample(endpoint)) return null;
  return (
    <span className="tag example" title="No API answers at this address: an example to try policies with">
      Example
    </span>
  );
}
