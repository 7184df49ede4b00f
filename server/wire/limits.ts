/** The most a list request answers at once (its `limit`), the same for the API's schemas and the CLI's flags. */
export const LIST_LIMITS = {
  /** GET /v1/agents/:id/spend-history */
  spendHistory: 500,
  /** GET /v1/agents/:id/tasks */
  tasks: 100,
  /** GET /v1/treasury/allocations */
  allocations: 500,
  /** GET /v1/services/search */
  search: 100,
} as const;
