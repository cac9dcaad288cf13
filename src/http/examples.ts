// Sample values the OpenAPI document's examples share, so that one example's ids match another's
// (the user a render names is the user the users example shows).
export const EXAMPLE = {
  orgId: '7d0f6c3e-2b8a-4f1e-9c5d-3a6b1e8f0c27',
  userId: 'b3e1f2a4-5c6d-4e7f-8a9b-0c1d2e3f4a5b',
  templateId: 'e8a7c6b5-d4e3-4f2a-9b1c-0d9e8f7a6b5c',
  keyId: '4c2a9e71-8d3b-4f6a-b5e0-1a7c9d3e5f20',
  correlationId: '3f1c6a52-9b7e-4d2a-8c1e-5b0f7e2d9a41',
  createdAt: '2026-01-05T09:30:00.000Z',
  updatedAt: '2026-01-12T14:05:00.000Z',
  html: '<table><tr><td><strong>{{ user.name }}</strong><br>{{ user.title }}</td></tr></table>',
  text: '{{ user.name }}\n{{ user.title }}',
} as const;
