export const db = { query: async (sql, params = []) => ({ sql, params, rows: [] }) };
