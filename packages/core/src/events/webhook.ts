/** One delivery of an event to a webhook: the EventBridge envelope as JSON. A non-2xx answer or no answer throws, so the caller's retries apply. */
export async function postToWebhook(url: string, event: object, timeoutMs = 10_000): Promise<void> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": "toolgate-events" },
    body: JSON.stringify(event),
    signal: AbortSignal.timeout(timeoutMs),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`the webhook answered ${response.status}`);
}
