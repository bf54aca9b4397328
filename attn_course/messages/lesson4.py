"""Lesson 4's messages: hints for the fused QKV, GPT-2's init and Conv1D, the fused-weight figure."""

MESSAGES = {
    "hint_returns_triple": {
        "ja": "{name} は (q, k, v) の3つを返してください（いまは {kind}）。",
        "ko": "{name}의 반환값은 (q, k, v) 세 개여야 합니다(지금은 {kind}).",
    },
    "split_differs": {
        "ja": "{name} が返した {parts} が、c_attn の出力を正しく分けたものと一致しません（最大誤差 {err:.3g}）。",
        "ko": "{name}의 반환값 중 {parts}: c_attn 출력을 올바르게 나눈 것과 일치하지 않습니다(최대 오차 {err:.3g}).",
    },
    "hint_interleaved_qkv": {
        "ja": "ヘッドと、Q, K, V の役割が混ざっています。(B, T, H, 3·D) に reshape してから chunk すると、ヘッドごとに [q | k | v] が並んでいる前提になりますが、GPT-2 の c_attn の出力は [Q 全体 | K 全体 | V 全体] の順です。先に split(E, dim=2) で Q, K, V に分け、それぞれをヘッドに分けてください。",
        "ko": "헤드와 Q, K, V의 역할이 섞였습니다. (B, T, H, 3·D)로 reshape한 다음 chunk하면 헤드마다 [q | k | v]가 놓여 있다고 가정하게 되지만, GPT-2의 c_attn 출력은 [Q 전체 | K 전체 | V 전체] 순서입니다. 먼저 split(E, dim=2)로 Q, K, V를 나눈 다음 각각을 헤드로 나누세요.",
    },
    "hint_qkv_order": {
        "ja": "Q, K, V の順番が入れ替わっています。c_attn の出力は最初の E 個が Q、次の E 個が K、最後の E 個が V です。",
        "ko": "Q, K, V의 순서가 바뀌었습니다. c_attn 출력의 처음 E개가 Q, 다음 E개가 K, 마지막 E개가 V입니다.",
    },
    "hint_missing_bias": {
        "ja": "バイアスが足りません。GPT-2 の c_attn と c_proj にはバイアスがあります（nn.Linear の既定 bias=True のままにし、重みを移すときはバイアスもコピーします）。",
        "ko": "편향이 빠졌습니다. GPT-2의 c_attn과 c_proj에는 편향이 있습니다(nn.Linear의 기본값 bias=True를 그대로 두고, 가중치를 옮길 때 편향도 복사하세요).",
    },
    "hint_missing_mask": {
        "ja": "因果マスクがかかっていません。GPT-2 はデコーダなので、各トークンが自分より後ろのトークンを見ないよう、スコアにマスクをかけます（SDPA なら is_causal=True）。",
        "ko": "인과 마스크가 적용되지 않았습니다. GPT-2는 디코더이므로 각 토큰이 자기보다 뒤의 토큰을 보지 않도록 점수에 마스크를 씌워야 합니다(SDPA라면 is_causal=True).",
    },
    "hint_conv1d_transpose": {
        "ja": "Hugging Face の GPT-2 は Conv1D という層を使い、weight を (入力, 出力) の形で持っています。nn.Linear の weight は (出力, 入力) なので、コピーするときに .T で転置してください。c_proj は正方行列なので、転置を忘れてもエラーにならず、値だけが違ってしまいます。",
        "ko": "Hugging Face의 GPT-2는 Conv1D라는 층을 쓰고 weight를 (입력, 출력) 모양으로 가집니다. nn.Linear의 weight는 (출력, 입력)이므로 복사할 때 .T로 전치하세요. c_proj는 정사각 행렬이라서 전치를 잊어도 오류 없이 값만 달라집니다.",
    },
    "hint_param_assign": {
        "ja": "パラメータに = でテンソルを代入すると TypeError になります（nn.Parameter でないものは入れられません）。with torch.no_grad(): の中で mine.c_attn.weight.copy_(hf.c_attn.weight.T) のように copy_ でコピーしてください。",
        "ko": "파라미터에 =로 텐서를 대입하면 TypeError가 납니다(nn.Parameter가 아닌 것은 넣을 수 없습니다). with torch.no_grad(): 안에서 mine.c_attn.weight.copy_(hf.c_attn.weight.T)처럼 copy_로 복사하세요.",
    },
    "hint_init_std": {
        "ja": "{name} の標準偏差が {got:.4f} になっています。この重み行列は、平均 0・標準偏差 {want:.4f} の正規分布で初期化します（GPT-2 の初期化：重み行列は 0.02、c_proj だけは 0.02/√(2·n_layer)）。",
        "ko": "{name}의 표준편차가 {got:.4f}입니다. 이 가중치 행렬은 평균 0, 표준편차 {want:.4f}인 정규분포로 초기화해야 합니다(GPT-2 초기화: 가중치 행렬은 0.02, c_proj만 0.02/√(2·n_layer)).",
    },
    "hint_init_bias": {
        "ja": "{name} が 0 になっていません。GPT-2 の初期化ではバイアスを 0 にします。",
        "ko": "{name}의 값이 0이 아닙니다. GPT-2 초기화에서는 편향을 0으로 둡니다.",
    },
    "demo_hf_error": {
        "ja": "E = {e}, H = {h}: GPT2Attention との最大誤差は、マスクを使う計算で {a:.1e}、SDPA で {b:.1e}",
        "ko": "E = {e}, H = {h}: GPT2Attention과의 최대 오차는 마스크를 쓴 계산에서 {a:.1e}, SDPA에서 {b:.1e}",
    },
    "fig_fused_title": {
        "ja": "c_attn.weight（{rows} × {cols}）：Q | K | V のブロックとヘッドの境界",
        "ko": "c_attn.weight({rows} × {cols}): Q | K | V 블록과 헤드 경계",
    },
    "fig_in_features": {"ja": "入力の次元（E）", "ko": "입력 차원(E)"},
    "fig_out_features": {"ja": "出力の次元（3E = Q | K | V）", "ko": "출력 차원(3E = Q | K | V)"},
    # ---------------------------------------------------------------- code comments
    "c4_chunk_columns": {
        "ja": "view(B, T, H, 3D).chunk(3) で、各ヘッドの q, k, v が qkv のどの列から来るか",
        "ko": "view(B, T, H, 3D).chunk(3)에서는 각 헤드의 q, k, v가 qkv의 어느 열에서 오는가",
    },
    "c4_proj_transposed": {
        "ja": "Conv1D (E, E) -> Linear (E, E)：形状が同じでも転置する",
        "ko": "Conv1D (E, E) -> Linear (E, E): 모양이 같아도 전치",
    },
}
