// The inspector's REST calls: the shopper's own memory records.

function cookie(name) {
  const prefix = `${name}=`;
  for (const part of document.cookie.split(";")) {
    const item = part.trim();
    if (item.startsWith(prefix)) return decodeURIComponent(item.slice(prefix.length));
  }
  return null;
}

async function failure(response) {
  let detail = `The request failed (${response.status}).`;
  try {
    const body = await response.json();
    if (body && typeof body.detail === "string") detail = body.detail;
  } catch {
    /* not JSON: keep the generic message */
  }
  const error = new Error(detail);
  error.status = response.status;
  return error;
}

export function createApi({ recordsUrl, csrfFallback }) {
  return {
    async listRecords({ limit = 20, offset = 0 } = {}) {
      const url = `${recordsUrl}?limit=${encodeURIComponent(limit)}&offset=${encodeURIComponent(offset)}`;
      const response = await fetch(url, {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      });
      if (!response.ok) throw await failure(response);
      return response.json();
    },
    async deleteRecord(blockId) {
      const response = await fetch(`${recordsUrl}/${encodeURIComponent(blockId)}/delete`, {
        method: "POST",
        credentials: "same-origin",
        headers: {
          Accept: "application/json",
          // The cookie is the source of truth (it rotates on sign-in); the rendered token
          // covers a page whose cookie has not been set yet.
          "X-CSRFToken": cookie("csrftoken") || csrfFallback || "",
        },
      });
      if (!response.ok) throw await failure(response);
      return response.json();
    },
  };
}
