package dev.sluice.test;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Captures what Sluice logs during each test. {@code System.Logger} writes to {@code java.util.logging} unless an
 * application installs another backend, so a handler on the JUL root logger sees every record:
 *
 * <pre>{@code
 * @RegisterExtension LogCapture logs = new LogCapture();
 * }</pre>
 *
 * <p>Thread-safe: records may arrive from any thread.
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final SimpleFormatter formatter = new SimpleFormatter();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @Override
    public void beforeEach(ExtensionContext context) {
        records.clear();
        handler.setLevel(Level.ALL);
        Logger.getLogger("").addHandler(handler);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Logger.getLogger("").removeHandler(handler);
    }

    /** The records so far. */
    public List<LogRecord> records() {
        return List.copyOf(records);
    }

    /** The records of {@code level} or above whose logger name starts with {@code loggerPrefix}. */
    public List<LogRecord> records(Level level, String loggerPrefix) {
        return records.stream()
                .filter(r -> r.getLevel().intValue() >= level.intValue())
                .filter(r -> r.getLoggerName() != null && r.getLoggerName().startsWith(loggerPrefix))
                .toList();
    }

    /** Each record as a reader would see it: formatted message plus the stack trace of its throwable, if any. */
    public List<String> texts() {
        return records.stream().map(this::text).toList();
    }

    /** One record formatted, with its throwable's stack trace. */
    public String text(LogRecord record) {
        StringBuilder text = new StringBuilder(formatter.formatMessage(record));
        if (record.getThrown() != null) {
            StringWriter trace = new StringWriter();
            record.getThrown().printStackTrace(new PrintWriter(trace));
            text.append(System.lineSeparator()).append(trace);
        }
        return text.toString();
    }
}
