// Liquid's error messages (liquidjs's, as the service and the editor's lint report them) in words
// for people who write signatures, not parsers.
export function friendlyLiquid(message: string): string {
  const text = message
    .replace(/^body\.(html|text):\s*/, '')
    .replace(/^Liquid syntax error:\s*/, '')
    .replace(/,\s*line:\d+,\s*col:\d+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const notClosed = /tag (\{%.*?%\}) not closed/.exec(text);
  if (notClosed) return `Liquid: ${notClosed[1]} is never closed (add its end tag, such as {% endif %}).`;
  const output = /output "?(\{\{.*?)"? not closed/.exec(text);
  if (output) return `Liquid: ${output[1].trim()} is missing its closing }}.`;
  return `Liquid: ${text}`;
}
