package dev.vfskit.flink;

/** A minimal JSON writer: objects, arrays, strings, numbers, null; commas placed for the caller. */
final class Json {
    private final StringBuilder b = new StringBuilder();
    private boolean first = true;

    Json begin() {
        sep();
        b.append('{');
        first = true;
        return this;
    }

    Json end() {
        b.append('}');
        first = false;
        return this;
    }

    Json beginArray() {
        sep();
        b.append('[');
        first = true;
        return this;
    }

    Json endArray() {
        b.append(']');
        first = false;
        return this;
    }

    Json key(String k) {
        sep();
        str(k);
        b.append(':');
        first = true;
        return this;
    }

    Json value(long v) {
        sep();
        b.append(v);
        first = false;
        return this;
    }

    Json value(String s) {
        sep();
        if (s == null) {
            b.append("null");
        } else {
            str(s);
        }
        first = false;
        return this;
    }

    private void sep() {
        if (!first) {
            b.append(',');
        }
        first = false;
    }

    private void str(String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        b.append('"');
    }

    @Override
    public String toString() {
        return b.toString();
    }
}
