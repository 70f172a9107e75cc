package dev.postbox.bench;

import java.util.Locale;

/** Number formats of the output lines: fixed decimals, dot as separator whatever the locale. */
final class Fmt {

    private Fmt() {
    }

    static String two(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    static String four(double v) {
        return String.format(Locale.ROOT, "%.4f", v);
    }

    /** A rate in events per second, whole numbers. */
    static String rate(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }

    /** Microseconds as milliseconds with 2 decimals. */
    static String ms(long micros) {
        return two(micros / 1000.0);
    }

    /** Prints one output line at once (stdout, flushed: the RESULT line must not be lost). */
    static void line(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
