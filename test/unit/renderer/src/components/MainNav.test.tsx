// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { MainNav } from '../../../../../renderer/src/components/MainNav.js';

afterEach(cleanup);

describe("the dashboard's main pages", () => {
  it('links every page an owner comes back to, Backup among them, the one shown marked', () => {
    render(<MainNav route={{ page: 'backup' }} />);
    const links = within(screen.getByRole('navigation', { name: 'Main' })).getAllByRole('link');
    // Backup was reached only from the "not backed up" banner, which hides once a backup is made:
    // scheduled backups were then out of reach but by typing #/backup.
    expect(links.map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Overview', '#/'],
      ['Activity', '#/activity'],
      ['Approvals', '#/approvals'],
      ['Registry', '#/registry'],
      ['Backup', '#/backup'],
    ]);
    expect(links.filter((link) => link.getAttribute('aria-current') === 'page').map((link) => link.textContent)).toEqual(['Backup']);
  });
});
