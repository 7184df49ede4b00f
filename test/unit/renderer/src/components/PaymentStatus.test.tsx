// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import { PaymentStatus } from '../../../../../renderer/src/components/PaymentStatus.js';

afterEach(cleanup);

describe("a payment's state, on screen", () => {
  it('a failed payment the owner denied says Denied, and why on hover', () => {
    const { container } = render(<PaymentStatus status="failed" errorCode="payment_denied" />);
    expect(container.textContent).toBe('Denied');
    expect(container.querySelector('.pill.failed')?.getAttribute('title')).toBe('denied by the owner');
  });

  it('one nobody answered says Expired; one the chain never took says Failed, with why', () => {
    expect(render(<PaymentStatus status="failed" errorCode="approval_expired" />).container.textContent).toBe('Expired');
    cleanup();
    const { container } = render(<PaymentStatus status="failed" errorCode="dropped" />);
    expect(container.textContent).toBe('Failed');
    expect(container.querySelector('.pill')?.getAttribute('title')).toBe('it never landed on chain');
  });

  it('a failed payment with no known reason says Failed, with no hover; a paid one Paid', () => {
    const { container } = render(<PaymentStatus status="failed" />);
    expect(container.textContent).toBe('Failed');
    expect(container.querySelector('.pill')?.hasAttribute('title')).toBe(false);
    cleanup();
    expect(render(<PaymentStatus status="approved" />).container.textContent).toBe('Paid');
  });

  it('a pending payment Coffer sends says Sending; an x402 one waits on the seller, and says so, with why on hover', () => {
    expect(render(<PaymentStatus status="pending" protocol="coffer" />).container.textContent).toBe('Sending');
    cleanup();
    const { container } = render(<PaymentStatus status="pending" protocol="x402" />);
    expect(container.textContent).toBe('With the seller');
    expect(container.querySelector('.pill.pending')?.getAttribute('title')).toBe(
      'Signed by the agent for the seller, whose facilitator sends it; Coffer counts it as spent until it lands, or frees it once it can no longer land',
    );
  });

  it('a held payment waits for the owner and leads to Approvals; once approved (not bought yet) it says so and leads nowhere', () => {
    const waiting = render(<PaymentStatus status="held" protocol="x402" />).container;
    expect(waiting.textContent).toBe('Waiting for you');
    expect(waiting.querySelector('a.pill.held')?.getAttribute('href')).toContain('approvals');
    cleanup();
    const approved = render(<PaymentStatus status="held" protocol="x402" approvedAt="2026-11-28T10:00:00.000Z" />).container;
    expect(approved.textContent).toBe('Approved, not bought yet');
    expect(approved.querySelector('a')).toBeNull();
  });
});
