package dev.postbox.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Rows printed as aligned columns under upper-case headers, two spaces apart. Every cell is one line,
 * cut to its column's width ({@value #DEFAULT_WIDTH} characters unless set), so one long error text
 * never wraps a table; the last column is not padded.
 */
final class Table {

    static final int DEFAULT_WIDTH = 40;

    private final String[] headers;
    private final int[] max;
    private final List<String[]> rows = new ArrayList<>();

    Table(String... headers) {
        this.headers = headers.clone();
        this.max = new int[headers.length];
        Arrays.fill(max, DEFAULT_WIDTH);
    }

    /** Cells of column {@code column} are cut to {@code width} characters. */
    Table width(int column, int width) {
        max[column] = width;
        return this;
    }

    Table row(Object... cells) {
        String[] r = new String[headers.length];
        for (int i = 0; i < r.length; i++) {
            Object c = i < cells.length ? cells[i] : null;
            r[i] = Fields.clip(c == null ? null : c.toString(), max[i]);
        }
        rows.add(r);
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    int size() {
        return rows.size();
    }

    void print(PrintWriter out) {
        int[] w = new int[headers.length];
        for (int i = 0; i < w.length; i++) {
            w[i] = headers[i].length();
            for (String[] r : rows) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        line(out, headers, w);
        for (String[] r : rows) {
            line(out, r, w);
        }
        out.flush();
    }

    private static void line(PrintWriter out, String[] cells, int[] w) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            sb.append(cells[i]);
            if (i < cells.length - 1) {
                sb.append(" ".repeat(w[i] - cells[i].length() + 2));
            }
        }
        out.println(sb.toString().stripTrailing());
    }
}
