package dev.steptrace.report;

import dev.steptrace.common.Messages;
import freemarker.cache.ClassTemplateLoader;
import freemarker.cache.ConditionalTemplateConfigurationFactory;
import freemarker.cache.FileNameGlobMatcher;
import freemarker.cache.FileTemplateLoader;
import freemarker.cache.FirstMatchTemplateConfigurationFactory;
import freemarker.cache.MultiTemplateLoader;
import freemarker.core.HTMLOutputFormat;
import freemarker.core.ParseException;
import freemarker.core.TemplateClassResolver;
import freemarker.core.TemplateConfiguration;
import freemarker.template.Configuration;
import freemarker.template.Template;
import freemarker.template.TemplateException;
import freemarker.template.TemplateExceptionHandler;
import freemarker.template.TemplateNotFoundException;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;

/**
 * Finds and renders the report templates: the built-in set (the repository's {@code report-templates/},
 * packaged in the jar under {@value #RESOURCE_PATH}) and, with {@code --templates DIR}, a directory
 * whose files take precedence over the built-in ones name by name (a user can override only
 * {@code report.css}, say, and keep the rest).
 *
 * <p>Output formats come from the file name, whatever the template itself says: {@code *.html.ftl}
 * renders with HTML auto-escaping, {@code *.md.ftl} with Markdown escaping ({@link MarkdownOutputFormat}).
 * Every {@code ${...}} is escaped unless the template writes {@code ?no_esc}.
 */
public final class TemplateLoader {
    /** Where the built-in templates are on the classpath. */
    public static final String RESOURCE_PATH = "/dev/steptrace/report/templates";

    private final Path overrideDir;
    private final Configuration cfg;

    /** The built-in templates only. */
    public static TemplateLoader builtIn() {
        try {
            return new TemplateLoader(null);
        } catch (IOException e) {
            throw new IllegalStateException(e); // no directory to read: cannot happen
        }
    }

    /**
     * @param overrideDir a directory whose templates take precedence over the built-in ones, or null
     * @throws ReportTemplateException when {@code overrideDir} is not a readable directory
     */
    public TemplateLoader(Path overrideDir) throws IOException {
        this.overrideDir = overrideDir == null ? null : overrideDir.toAbsolutePath().normalize();
        List<freemarker.cache.TemplateLoader> loaders = new ArrayList<>();
        if (this.overrideDir != null) {
            if (!Files.isDirectory(this.overrideDir)) {
                throw new ReportTemplateException("templates directory " + overrideDir + " does not exist or is not a directory", null);
            }
            loaders.add(new FileTemplateLoader(this.overrideDir.toFile()));
        }
        loaders.add(new ClassTemplateLoader(TemplateLoader.class, RESOURCE_PATH));
        cfg = configuration(new MultiTemplateLoader(loaders.toArray(freemarker.cache.TemplateLoader[]::new)));
    }

    /** The override directory, or null. */
    public Path overrideDir() {
        return overrideDir;
    }

    /** Whether {@code name} comes from the override directory rather than the built-in set. */
    public boolean isOverridden(String name) {
        return overrideDir != null && Files.isRegularFile(overrideDir.resolve(name));
    }

    /**
     * Renders template {@code name} with {@code model} as its root.
     *
     * @throws ReportTemplateException naming the template, line and column when it is missing, does
     *                                 not parse, or fails while rendering
     */
    public String render(String name, Map<String, Object> model) throws ReportTemplateException {
        Template template;
        try {
            template = cfg.getTemplate(name);
        } catch (TemplateNotFoundException e) {
            throw new ReportTemplateException("report template " + name + " not found"
                    + (overrideDir != null ? " (looked in " + overrideDir + " and the built-in templates)" : ""), e);
        } catch (ParseException e) {
            throw new ReportTemplateException(where(e.getTemplateName() != null ? e.getTemplateName() : name, e.getLineNumber(), e.getColumnNumber())
                    + ": " + Messages.firstLine(e.getEditorMessage()), e);
        } catch (IOException e) {
            throw new ReportTemplateException("cannot read report template " + name + ": " + e.getMessage(), e);
        }
        StringWriter out = new StringWriter(64 * 1024);
        try {
            template.process(model, out);
        } catch (TemplateException e) {
            String message = Messages.firstLine(e.getMessageWithoutStackTop()).strip();
            Integer line = e.getLineNumber();
            Integer column = e.getColumnNumber();
            throw new ReportTemplateException(where(e.getTemplateSourceName() != null ? e.getTemplateSourceName() : name,
                    line, column) + ": " + message, e);
        } catch (IOException e) {
            throw new ReportTemplateException("cannot render report template " + name + ": " + e.getMessage(), e);
        }
        return out.toString();
    }

    private String where(String template, Integer line, Integer column) {
        String source = isOverridden(template) ? overrideDir.resolve(template).toString() : template + " (built-in)";
        StringBuilder sb = new StringBuilder("report template ").append(source);
        if (line != null) {
            sb.append(" line ").append(line);
            if (column != null) {
                sb.append(", column ").append(column);
            }
        }
        return sb.toString();
    }

    private static Configuration configuration(freemarker.cache.TemplateLoader loader) {
        Configuration cfg = new Configuration(Configuration.VERSION_2_3_34);
        cfg.setTemplateLoader(loader);
        cfg.setDefaultEncoding("UTF-8");
        cfg.setOutputEncoding("UTF-8");
        cfg.setLocale(Locale.ROOT);
        cfg.setTimeZone(TimeZone.getTimeZone("UTC"));
        cfg.setNumberFormat("0.###");
        cfg.setBooleanFormat("c");
        cfg.setTemplateExceptionHandler(TemplateExceptionHandler.RETHROW_HANDLER);
        cfg.setLogTemplateExceptions(false);
        cfg.setWrapUncheckedExceptions(true);
        cfg.setFallbackOnNullLoopVariable(false);
        // Templates are the user's own files, but still get no way to reach Java classes.
        cfg.setAPIBuiltinEnabled(false);
        cfg.setNewBuiltinClassResolver(TemplateClassResolver.ALLOWS_NOTHING_RESOLVER);
        cfg.setRegisteredCustomOutputFormats(List.of(MarkdownOutputFormat.INSTANCE));

        TemplateConfiguration html = new TemplateConfiguration();
        html.setOutputFormat(HTMLOutputFormat.INSTANCE);
        html.setAutoEscapingPolicy(Configuration.ENABLE_IF_SUPPORTED_AUTO_ESCAPING_POLICY);
        TemplateConfiguration md = new TemplateConfiguration();
        md.setOutputFormat(MarkdownOutputFormat.INSTANCE);
        md.setAutoEscapingPolicy(Configuration.ENABLE_IF_SUPPORTED_AUTO_ESCAPING_POLICY);
        cfg.setTemplateConfigurations(new FirstMatchTemplateConfigurationFactory(
                new ConditionalTemplateConfigurationFactory(new FileNameGlobMatcher("*.html.ftl"), html),
                new ConditionalTemplateConfigurationFactory(new FileNameGlobMatcher("*.md.ftl"), md))
                .allowNoMatch(true));
        return cfg;
    }
}
