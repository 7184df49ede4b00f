// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import { PaymentVenue } from '../../../../../renderer/src/components/PaymentVenue.js';

afterEach(cleanup);

describe('where a payment went, on screen', () => {
  it('a Coffer payment is its service', () => {
    const { container } = render(
      <PaymentVenue name="demo-weather" protocol="coffer" resource={null} recipient="93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx" />,
    );
    expect(container.textContent).toBe('demo-weather');
  });

  it('an x402 payment says so, with the URL bought and the seller', () => {
    const { container, getByTitle } = render(
      <PaymentVenue
        name="api.example.com"
        protocol="x402"
        resource="https://api.example.com/data?q=1"
        recipient="CZQNapiF5nsKom9V71M8baYecLgD3msMDgkYoT4Xs2Hx"
      />,
    );
    expect(container.textContent).toContain('api.example.com x402');
    expect(container.textContent).toContain('https://api.example.com/data?q=1');
    expect(container.textContent).toContain('to CZQN…s2Hx');
    expect(getByTitle('CZQNapiF5nsKom9V71M8baYecLgD3msMDgkYoT4Xs2Hx')).toBeTruthy();
  });
});
