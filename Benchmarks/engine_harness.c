/*
 * engine_harness: the local engines called directly through their C APIs, with no Parley
 * code in between. `parley bench` runs it on the same inputs as its own pipeline so that
 * Parley's overhead can be stated as a ratio measured in the same run.
 *
 *   engine_harness whisper MODEL SAMPLES.f32 THREADS
 *       transcribes 16 kHz mono float32 samples (raw, little-endian), greedy, English
 *   engine_harness llama MODEL PROMPT.txt N_PREDICT THREADS
 *       evaluates an already-templated prompt and generates up to N_PREDICT tokens greedily
 *
 * Prints one JSON object on stdout. Built by Benchmarks/run with the installed libraries.
 */
#include <llama.h>
#include <whisper.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void quiet(enum ggml_log_level level, const char *text, void *user) {
    (void)level; (void)text; (void)user;
}

static char *read_file(const char *path, long *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)*size + 1);
    if (data && fread(data, 1, (size_t)*size, f) != (size_t)*size) { free(data); data = NULL; }
    if (data) data[*size] = 0;
    fclose(f);
    return data;
}

static int run_whisper(const char *model, const char *samples_path, int threads) {
    long bytes = 0;
    float *samples = (float *)read_file(samples_path, &bytes);
    if (!samples) { fprintf(stderr, "cannot read %s\n", samples_path); return 1; }
    int count = (int)(bytes / (long)sizeof(float));
    whisper_log_set(quiet, NULL);
    double t0 = now_ms();
    struct whisper_context_params cparams = whisper_context_default_params();
    cparams.use_gpu = false;
    struct whisper_context *ctx = whisper_init_from_file_with_params(model, cparams);
    if (!ctx) { fprintf(stderr, "cannot load %s\n", model); return 1; }
    double t1 = now_ms();
    struct whisper_full_params params = whisper_full_default_params(WHISPER_SAMPLING_GREEDY);
    params.n_threads = threads;
    params.print_progress = false;
    params.print_realtime = false;
    params.print_timestamps = false;
    params.no_context = true;
    params.suppress_blank = true;
    params.suppress_nst = true;
    params.language = "en";
    if (whisper_full(ctx, params, samples, count) != 0) { fprintf(stderr, "whisper_full failed\n"); return 1; }
    double t2 = now_ms();
    printf("{\"load_ms\":%.3f,\"transcribe_ms\":%.3f,\"text\":\"", t1 - t0, t2 - t1);
    for (int i = 0; i < whisper_full_n_segments(ctx); i++) {
        for (const char *c = whisper_full_get_segment_text(ctx, i); *c; c++) {
            if (*c == '"' || *c == '\\') putchar('\\');
            if ((unsigned char)*c >= 0x20) putchar(*c);
        }
    }
    printf("\"}\n");
    whisper_free(ctx);
    free(samples);
    return 0;
}

static int run_llama(const char *model_path, const char *prompt_path, int n_predict, int threads) {
    long length = 0;
    char *prompt = read_file(prompt_path, &length);
    if (!prompt) { fprintf(stderr, "cannot read %s\n", prompt_path); return 1; }
    llama_log_set(quiet, NULL);
    llama_backend_init();
    double t0 = now_ms();
    struct llama_model_params mparams = llama_model_default_params();
    mparams.n_gpu_layers = 0;
    struct llama_model *model = llama_model_load_from_file(model_path, mparams);
    if (!model) { fprintf(stderr, "cannot load %s\n", model_path); return 1; }
    struct llama_context_params cparams = llama_context_default_params();
    cparams.n_ctx = 2048;
    cparams.n_batch = 512;
    cparams.n_threads = threads;
    cparams.n_threads_batch = threads;
    cparams.no_perf = true;
    struct llama_context *ctx = llama_init_from_model(model, cparams);
    const struct llama_vocab *vocab = llama_model_get_vocab(model);
    double t1 = now_ms();

    int capacity = (int)length + 16;
    llama_token *tokens = malloc(sizeof(llama_token) * (size_t)capacity);
    int n_prompt = llama_tokenize(vocab, prompt, (int)length, tokens, capacity, true, true);
    if (n_prompt < 0) { fprintf(stderr, "tokenize failed\n"); return 1; }
    if (llama_decode(ctx, llama_batch_get_one(tokens, n_prompt)) != 0) { fprintf(stderr, "decode failed\n"); return 1; }
    double t2 = now_ms();

    struct llama_sampler_chain_params sparams = llama_sampler_chain_default_params();
    struct llama_sampler *sampler = llama_sampler_chain_init(sparams);
    llama_sampler_chain_add(sampler, llama_sampler_init_penalties(llama_vocab_n_tokens(vocab), 64, 1.1f, 0, 0));
    llama_sampler_chain_add(sampler, llama_sampler_init_greedy());
    int generated = 0;
    double first_token_ms = 0;
    char piece[256];
    for (; generated < n_predict; generated++) {
        llama_token token = llama_sampler_sample(sampler, ctx, -1);
        if (generated == 0) first_token_ms = now_ms() - t1;
        if (llama_vocab_is_eog(vocab, token)) break;
        llama_token_to_piece(vocab, token, piece, sizeof piece, 0, false);
        if (llama_decode(ctx, llama_batch_get_one(&token, 1)) != 0) break;
    }
    double t3 = now_ms();
    printf("{\"load_ms\":%.3f,\"prompt_tokens\":%d,\"prompt_ms\":%.3f,\"first_token_ms\":%.3f,"
           "\"generated_tokens\":%d,\"generation_ms\":%.3f,\"total_ms\":%.3f}\n",
           t1 - t0, n_prompt, t2 - t1, first_token_ms, generated, t3 - t2, t3 - t1);
    llama_sampler_free(sampler);
    llama_free(ctx);
    llama_model_free(model);
    free(tokens);
    free(prompt);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "whisper") == 0) return run_whisper(argv[2], argv[3], atoi(argv[4]));
    if (argc == 6 && strcmp(argv[1], "llama") == 0) return run_llama(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
    fprintf(stderr, "usage: %s whisper MODEL SAMPLES.f32 THREADS | llama MODEL PROMPT.txt N_PREDICT THREADS\n", argv[0]);
    return 2;
}
