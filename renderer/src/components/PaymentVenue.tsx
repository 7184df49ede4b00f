/**
 * Where a payment went: the service; for an x402 payment also the URL it bought and the seller's
 * address (the seller's facilitator sent it, so that address is what the chain shows).
 */
export function PaymentVenue({
  name,
  protocol,
  resource,
  recipient,
}: {
  name: string;
  protocol: 'coffer' | 'x402';
  resource: string | null;
  recipient: string;
}) {
  if (protocol !== 'x402') return <>{name}</>;
  return (
    <>
      {name}{' '}
      <span className="pill" title="Paid with x402: signed by the agent, sent by the seller's facilitator">
        x402
      </span>
      {resource !== null && (
        <div className="muted sub" title={resource}>
          {resource}
        </div>
      )}
      <div className="muted sub" title={recipient}>
        to {recipient.slice(0, 4)}…{recipient.slice(-4)}
      </div>
    </>
  );
}
