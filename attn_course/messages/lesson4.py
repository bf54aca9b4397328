"""Lesson 4's messages: hints for the fused QKV, GPT-2's init and Conv1D, the fused-weight figure."""

MESSAGES = {
    "hint_bias_from_module": {
        "ja": "コピー先のモジュールにバイアスがありません（c_attn.bias や c_proj.bias が None）。原因はこのコードではなく、演習 2 の GPT2SelfAttention です。c_attn と c_proj は、nn.Linear の既定どおり bias=True で作ってください。",
        "ko": "복사 대상 모듈에 편향이 없습니다(c_attn.bias나 c_proj.bias가 None). 원인은 이 코드가 아니라 연습 문제 2의 GPT2SelfAttention입니다. c_attn과 c_proj를 nn.Linear의 기본값 bias=True 그대로 만드세요.",
    },
    "hint_reshape_heads_first": {
        "ja": "(B, T, E) を view や reshape で直接 (B, H, T, D) にしています。形状は合っていても、メモリ上の並びは (B, T, H, D) のままなので、ヘッドとトークンの値が混ざります。先に view(B, T, H, D) にしてから、transpose(1, 2) で T と H の軸を入れ替えてください。",
        "ko": "(B, T, E)를 view나 reshape로 바로 (B, H, T, D)로 만들었습니다. 모양은 맞아도 메모리에 놓인 순서는 (B, T, H, D) 그대로라서 헤드와 토큰의 값이 섞입니다. 먼저 view(B, T, H, D)로 만든 다음 transpose(1, 2)로 T와 H 축을 맞바꾸세요.",
    },
    "hint_dropout_before_softmax": {
        "ja": "ドロップアウトをソフトマックスの前のスコアにかけています。GPT-2 のドロップアウトは、ソフトマックスのあとのアテンションの重みにかけます（self.dropout(weights) @ v）。",
        "ko": "드롭아웃을 소프트맥스에 넣기 전의 점수에 적용했습니다. GPT-2의 드롭아웃은 소프트맥스를 거친 어텐션 가중치에 적용합니다(self.dropout(weights) @ v).",
    },
    "init_differs": {
        "ja": "{name}(module, n_layer={n_layer}) で初期化したパラメータが、GPT-2 の初期化と一致しません。",
        "ko": "{name}(module, n_layer={n_layer})로 초기화한 파라미터가 GPT-2의 초기화와 일치하지 않습니다.",
    },
    "hint_init_n_layer": {
        "ja": "c_proj.weight の標準偏差が、n_layer = 12 のときの値のままです（いまの n_layer は {n}）。0.02 / math.sqrt(2 * n_layer) の n_layer には、12 ではなく引数の n_layer を使ってください。",
        "ko": "c_proj.weight의 표준편차가 n_layer = 12일 때의 값 그대로입니다(지금 n_layer는 {n}). 0.02 / math.sqrt(2 * n_layer)의 n_layer에는 12가 아니라 인자 n_layer를 쓰세요.",
    },
    "hint_init_missing_two": {
        "ja": "c_proj.weight の標準偏差が 0.02 / √n_layer になっています。1層にアテンションと MLP の2つの残差接続があるので、0.02 / math.sqrt(2 * n_layer) です（2 が抜けています）。",
        "ko": "c_proj.weight의 표준편차가 0.02 / √n_layer입니다. 층마다 잔차 연결이 두 개(어텐션 뒤와 MLP 뒤) 있으므로 0.02 / math.sqrt(2 * n_layer)입니다(2가 빠졌습니다).",
    },
    "hint_init_uniform": {
        "ja": "{name} の値が一様分布に従っています。GPT-2 は重み行列を正規分布で初期化します（nn.init.normal_）。標準偏差が同じでも、一様分布（nn.init.uniform_ など）で初期化するのは別の初期化です。",
        "ko": "{name}의 값이 균등분포를 따릅니다. GPT-2는 가중치 행렬을 정규분포로 초기화합니다(nn.init.normal_). 표준편차가 같아도 균등분포(nn.init.uniform_ 등)는 다른 초기화입니다.",
    },
    "sdpa_train_differs": {
        "ja": "use_sdpa=True の計算を学習モード（train()、dropout=0.5）で実行した出力が、重みにドロップアウトをかけた正しい出力と一致しません（最大誤差 {err:.3g}）。",
        "ko": "use_sdpa=True 계산을 학습 모드(train(), dropout=0.5)로 실행한 출력이, 가중치에 드롭아웃을 적용한 올바른 출력과 일치하지 않습니다(최대 오차 {err:.3g}).",
    },
    "hint_dropout_train_sdpa": {
        "ja": "use_sdpa=True の計算で、学習モードでもドロップアウトがかかっていません。scaled_dot_product_attention の dropout_p には、学習中（self.training が True）は self.dropout.p を、評価中は 0.0 を渡します。",
        "ko": "use_sdpa=True로 계산하면 학습 모드에서도 드롭아웃이 적용되지 않습니다. scaled_dot_product_attention의 dropout_p로는 학습 중(self.training이 True)이면 self.dropout.p를, 평가 중이면 0.0을 넘깁니다.",
    },
    "hint_count_no_bias": {
        "ja": "バイアスを数えていません。c_attn（nn.Linear(E, 3E)）には重み行列の 3E×E 個のほかにバイアスが 3E 個、c_proj（nn.Linear(E, E)）には重み行列の E×E 個のほかにバイアスが E 個あります。",
        "ko": "편향을 세지 않았습니다. c_attn(nn.Linear(E, 3E))에는 가중치 행렬의 원소 3E×E개 말고도 편향이 3E개, c_proj(nn.Linear(E, E))에는 가중치 행렬의 원소 E×E개 말고도 편향이 E개 있습니다.",
    },
    "hint_count_buffer": {
        "ja": "因果マスクのバッファ（causal）まで数えています。register_buffer で登録したものは学習しないのでパラメータではなく、parameters() にも入りません。数えるのは c_attn と c_proj の重みとバイアスだけです。",
        "ko": "인과 마스크 버퍼(causal)까지 셌습니다. register_buffer로 등록한 텐서는 파라미터가 아니라 버퍼이므로 학습되지 않고 parameters()에도 들어가지 않습니다. 세는 것은 c_attn과 c_proj의 가중치 행렬과 편향뿐입니다.",
    },
    "count_module_differs": {
        "ja": "あなたの {module} のパラメータ数が、GPT-2 のアテンション1層のパラメータ数と一致しません。演習 2 のモジュール（c_attn と c_proj の形状・バイアスの有無）を見直してください。",
        "ko": "여러분이 만든 {module}의 파라미터 수가 GPT-2 어텐션 한 층의 파라미터 수와 다릅니다. 연습 문제 2의 모듈(c_attn과 c_proj의 모양, 편향)을 다시 확인하세요.",
    },
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
    # ---------------------------------------------------------------- naming a mistake in the module
    # Lessons 5 to 7 paste the same module and reuse these through its checks (attn_course/checks/gpt2_module.py).
    "hint_split_three": {
        "ja": "qkv を Q, K, V の3つに分けられていません。最後の軸（dim=2 または dim=-1）を E = 3E // 3 個ずつに分ける qkv.split(E, dim=2) なら、3つのテンソルが返ります。",
        "ko": "qkv를 Q, K, V 세 개로 나누지 못했습니다. 마지막 축(dim=2 또는 dim=-1)을 E = 3E // 3개씩 나누는 qkv.split(E, dim=2)를 쓰면 텐서 세 개가 반환됩니다.",
    },
    "hint_split_shape": {
        "ja": "q, k, v はそれぞれ (B, H, T, D) にします。split で分けた (B, T, E) を view(B, T, H, D) で (B, T, H, D) にしてから、transpose(1, 2) で T と H の軸を入れ替えます。",
        "ko": "q, k, v는 각각 (B, H, T, D) 모양이어야 합니다. split으로 나눈 (B, T, E)를 view(B, T, H, D)로 (B, T, H, D)로 만든 다음, transpose(1, 2)로 T와 H 축을 맞바꿉니다.",
    },
    "hint_split_qkv_input": {
        "ja": "split_qkv には c_attn の出力 (B, T, 3E) とヘッドの数を、この順に渡します: q, k, v = split_qkv(self.c_attn(x), self.n_head)。返ってくる q, k, v はそれぞれ (B, H, T, D) です。",
        "ko": "split_qkv에는 c_attn의 출력 (B, T, 3E)와 헤드 수를 이 순서로 넘깁니다: q, k, v = split_qkv(self.c_attn(x), self.n_head). 반환되는 q, k, v는 각각 (B, H, T, D)입니다.",
    },
    "hint_n_head_arg": {
        "ja": "重みのヘッドの軸の大きさが {got} です（n_head = {h} のはずです）。split_qkv の2つ目の引数には、ヘッドの数 self.n_head を渡します（head_dim や embed_dim ではありません）。",
        "ko": "가중치의 헤드 축 크기가 {got}입니다(n_head = {h}여야 합니다). split_qkv의 두 번째 인자에는 헤드 수 self.n_head를 넘깁니다(head_dim이나 embed_dim이 아닙니다).",
    },
    "hint_buffer_bool": {
        "ja": "因果マスクのバッファが bool ではありません。~ で反転できるのは bool（と整数）のテンソルだけです。torch.ones(max_len, max_len, dtype=torch.bool).tril() のように dtype=torch.bool で作ります。",
        "ko": "인과 마스크 버퍼가 bool이 아닙니다. ~로 뒤집을 수 있는 것은 bool(과 정수) 텐서뿐입니다. torch.ones(max_len, max_len, dtype=torch.bool).tril()처럼 dtype=torch.bool로 만드세요.",
    },
    "hint_masked_fill_args": {
        "ja": "masked_fill の引数は (マスク, 埋める値) の順です: scores.masked_fill(~self.causal[:T, :T], float(\"-inf\"))。",
        "ko": "masked_fill의 인자는 (마스크, 채울 값) 순서입니다: scores.masked_fill(~self.causal[:T, :T], float(\"-inf\")).",
    },
    "hint_softmax_dim": {
        "ja": "torch.softmax には軸を dim で渡します。各クエリ（行）の中で、キーの方向に和が 1 になるよう dim=-1 にします。",
        "ko": "torch.softmax에는 축을 dim으로 넘겨야 합니다. 각 쿼리(행) 안에서 키 방향으로 합이 1이 되도록 dim=-1로 하세요.",
    },
    "hint_returns_swapped": {
        "ja": "forward は (出力, 重み) の順に返します。いまは (重み, 出力) の順になっているようです（1つ目が4次元の重み (B, H, T, T) です）。",
        "ko": "forward는 (출력, 가중치) 순서로 반환합니다. 지금은 (가중치, 출력) 순서인 것 같습니다(첫 번째 값이 4차원 가중치 (B, H, T, T)입니다).",
    },
    "hint_causal_diagonal": {
        "ja": "因果マスクの対角線がずれています。クエリ i が見てよいのはキー 0〜i（自分自身を含む）なので、tril() は diagonal=0（既定）のまま使います。diagonal=1 では1つ先のキーまで見え、diagonal=-1 では自分自身が隠れて、先頭の行はすべて隠れるので NaN になります。",
        "ko": "인과 마스크의 대각선이 어긋났습니다. 쿼리 i가 볼 수 있는 것은 키 0~i(자기 자신 포함)이므로 tril()은 diagonal=0(기본값) 그대로 씁니다. diagonal=1이면 한 칸 뒤의 키까지 보이고, diagonal=-1이면 자기 자신이 가려지며 첫 행은 전부 가려져 NaN이 됩니다.",
    },
    "hint_mask_fill_zero": {
        "ja": "隠す位置のスコアを 0 で埋めていませんか。exp(0) = 1 なので、0 で埋めても隠したい位置に重みが残ります。masked_fill で埋める値は float(\"-inf\") です。",
        "ko": "가릴 위치의 점수를 0으로 채우지 않았나요? exp(0) = 1이므로 0으로 채워도 가리려던 위치에 가중치가 남습니다. masked_fill로 채울 값은 float(\"-inf\")입니다.",
    },
    "hint_mask_times_inf": {
        "ja": "マスクに -inf を掛けてスコアに足していませんか。見てよい位置では 0 × (-inf) = NaN になり、重みがすべて NaN になります。掛け算ではなく masked_fill で -inf を入れます。",
        "ko": "마스크에 -inf를 곱해서 점수에 더하지 않았나요? 볼 수 있는 위치에서는 0 × (-inf) = NaN이 되어 가중치가 모두 NaN이 됩니다. 곱셈 대신 masked_fill로 -inf를 넣으세요.",
    },
    "hint_no_softmax": {
        "ja": "ソフトマックスがかかっていないようです（重みが、マスクをかけたスコアのままです）。torch.softmax(scores, dim=-1) で各行の和を 1 にします。",
        "ko": "소프트맥스가 적용되지 않은 것 같습니다(가중치가 마스크를 씌운 점수 그대로입니다). torch.softmax(scores, dim=-1)로 각 행의 합을 1로 만드세요.",
    },
    "hint_weights_nan": {
        "ja": "重みに NaN があります。ソフトマックスに入る行のキーがすべて -inf だと（すべて隠れた行）0/0 で NaN になり、0 × (-inf) も NaN です。因果マスクでは、どのクエリも少なくとも自分自身（対角線）は見られるようにします。",
        "ko": "가중치에 NaN이 있습니다. 소프트맥스에 들어가는 행의 키가 모두 -inf이면(전부 가려진 행) 0/0이라 NaN이 되고, 0 × (-inf)도 NaN입니다. 인과 마스크에서는 모든 쿼리가 적어도 자기 자신(대각선)은 볼 수 있어야 합니다.",
    },
    "hint_scores_formula": {
        "ja": "重みの各行の和は 1 で、因果マスクも正しくかかっていますが、値が違います。ソフトマックスに入るスコアを確かめてください。スコアは q @ k.transpose(-2, -1) / math.sqrt(D) です（D = E / H は1つのヘッドの幅。q と k は split_qkv で分けたもの）。",
        "ko": "가중치의 각 행의 합은 1이고 인과 마스크도 올바르게 적용되었지만 값이 다릅니다. 소프트맥스에 들어가는 점수를 확인하세요. 점수는 q @ k.transpose(-2, -1) / math.sqrt(D)입니다(D = E / H는 헤드 하나의 폭, q와 k는 split_qkv로 나눈 것).",
    },
    "hint_after_weights": {
        "ja": "返した重みは正しいので、間違いは重みのあとにあります。weights @ v（(B, H, T, D)）、ヘッドの結合 transpose(1, 2).contiguous().view(B, T, E)、c_proj を順に確かめてください。",
        "ko": "반환한 가중치는 올바르므로 잘못은 가중치 다음 단계에 있습니다. weights @ v((B, H, T, D)), 헤드 잇기 transpose(1, 2).contiguous().view(B, T, E), c_proj를 차례로 확인하세요.",
    },
    "hint_c_proj_forgotten": {
        "ja": "最後の出力射影 c_proj を通していないようです。ヘッドをつないだ (B, T, E) を self.c_proj に通してから返します。",
        "ko": "마지막 출력 투영 c_proj를 거치지 않은 것 같습니다. 헤드를 이어 붙인 (B, T, E)를 self.c_proj에 통과시킨 뒤 반환하세요.",
    },
    "hint_sdpa_call": {
        "ja": "マスクを使う経路は正しく、use_sdpa=True の経路だけが違います。F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p) の引数（q, k, v の順、eval では dropout_p=0）と、そのあとのヘッドの結合と c_proj を、マスクを使う経路と同じにしてください。",
        "ko": "마스크를 쓰는 경로는 올바르고 use_sdpa=True 경로만 다릅니다. F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)의 인자(q, k, v 순서, eval에서는 dropout_p=0)와 그 뒤의 헤드 잇기, c_proj를 마스크를 쓰는 경로와 같게 하세요.",
    },
    "train_output_differs": {
        "ja": "train モード（dropout=0.5、同じ乱数）で、マスクを使う経路の出力が、ソフトマックスのあとの重みにドロップアウトをかけたときの出力と一致しません（最大誤差 {err:.3g}）。",
        "ko": "train 모드(dropout=0.5, 같은 난수)에서 마스크를 쓰는 경로의 출력이, 소프트맥스 다음의 가중치에 드롭아웃을 걸었을 때의 출력과 일치하지 않습니다(최대 오차 {err:.3g}).",
    },
    "hint_dropout_place": {
        "ja": "ドロップアウトをかける場所が違います。self.dropout はソフトマックスのあとの重みにかけます（self.dropout(weights) @ v）。weights @ v の結果にかけると、同じ乱数でも消える値が変わります。",
        "ko": "드롭아웃을 거는 위치가 다릅니다. self.dropout은 소프트맥스 다음의 가중치에 겁니다(self.dropout(weights) @ v). weights @ v의 결과에 걸면 같은 난수라도 지워지는 값이 달라집니다.",
    },
    "hint_named_parameters": {
        "ja": "module.named_parameters() は (名前, パラメータ) の組を返します。for name, p in module.named_parameters(): のように受け取り、名前（'c_proj.weight' など）で初期化のしかたを選びます。",
        "ko": "module.named_parameters()는 (이름, 파라미터) 쌍을 반환합니다. for name, p in module.named_parameters():처럼 받아서 이름('c_proj.weight' 등)으로 초기화 방법을 고르세요.",
    },
    "hint_init_mean": {
        "ja": "{name} の平均が {got:.4f} になっています。GPT-2 の初期化では、重み行列を平均 0（mean=0.0）の正規分布からとります。",
        "ko": "{name}의 평균이 {got:.4f}입니다. GPT-2 초기화에서는 가중치 행렬을 평균 0(mean=0.0)인 정규분포에서 뽑습니다.",
    },
    "hint_split_cascade": {
        "ja": "原因はパラメータのコピーではなく、演習 1 の split_qkv にあります。演習 2 の GPT2SelfAttention はそれで c_attn の出力を分けるので、パラメータは正しく移っていても出力は合いません。先に演習 1 のチェックを通してください。",
        "ko": "원인은 파라미터 복사가 아니라 연습 문제 1의 split_qkv에 있습니다. 연습 문제 2의 GPT2SelfAttention은 그것으로 c_attn 출력을 나누므로, 파라미터가 올바르게 옮겨졌어도 출력이 맞지 않습니다. 먼저 연습 문제 1의 검사를 통과하세요.",
    },
    "hint_module_cascade": {
        "ja": "原因はパラメータのコピーではなく、演習 2 の GPT2SelfAttention（その forward）にあります。パラメータは正しく移っていても、モジュールの計算が違えば出力は合いません。先に演習 2 のチェックを通してください。",
        "ko": "원인은 파라미터 복사가 아니라 연습 문제 2의 GPT2SelfAttention(그 forward)에 있습니다. 파라미터가 올바르게 옮겨졌어도 모듈의 계산이 다르면 출력이 맞지 않습니다. 먼저 연습 문제 2의 검사를 통과하세요.",
    },
    # ---------------------------------------------------------------- the module's max_len and SDPA weights
    # (lesson4.module_max_len, which lessons 5 to 7 run on the pasted module too)
    "max_len_buffer": {
        "ja": "GPT2SelfAttention(…, max_len={max_len}) の causal バッファの形状が {got} です。形状は (max_len, max_len) = ({max_len}, {max_len}) のはずです。",
        "ko": "GPT2SelfAttention(…, max_len={max_len})의 causal 버퍼 모양이 {got}입니다. 모양은 (max_len, max_len) = ({max_len}, {max_len})이어야 합니다.",
    },
    "hint_max_len_keyword": {
        "ja": "コンストラクタがキーワード引数 max_len を受け取れません。チェックも講座のコードも GPT2SelfAttention(E, H, max_len=…) のように呼ぶので、引数の名前は max_len にします（block_size などほかの名前では動きません）：def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0)。",
        "ko": "생성자가 키워드 인자 max_len을 받지 못합니다. 검사도 강좌의 코드도 GPT2SelfAttention(E, H, max_len=…)처럼 호출하므로 인자 이름은 max_len이어야 합니다(block_size 같은 다른 이름으로는 동작하지 않습니다). def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0)처럼 정의하세요.",
    },
    "hint_max_len_buffer": {
        "ja": "バッファ self.causal の大きさが max_len に合っていません。torch.ones(64, 64) のように大きさを数で直接書かずに、torch.ones(max_len, max_len, dtype=torch.bool).tril() で作ってください。チェックでは、既定の 64 とは違う max_len でモジュールを作り、64 より長い系列を入力します（第6回の第3節では max_len=1024 で作ります）。",
        "ko": "causal 버퍼의 크기가 max_len과 맞지 않습니다. torch.ones(64, 64)처럼 크기를 숫자로 고정하지 말고 torch.ones(max_len, max_len, dtype=torch.bool).tril()로 만드세요. 검사에서는 기본값 64가 아닌 max_len으로 모듈을 만들고 64보다 긴 시퀀스를 넣습니다(6강 3절에서는 max_len=1024로 만듭니다).",
    },
    "sdpa_weights_not_none": {
        "ja": "use_sdpa=True のとき、重みとして None ではなく {kind} が返ってきました。",
        "ko": "use_sdpa=True일 때 가중치 자리에 None이 아니라 {kind}가 반환되었습니다.",
    },
    "hint_sdpa_weights_none": {
        "ja": "use_sdpa=True のときは (出力, None) を返します。SDPA は重みを返さないので、重みを別に計算して返すと、SDPA で省けるはずの (B, H, T, T) の行列を結局作ることになります。",
        "ko": "use_sdpa=True일 때는 (출력, None)을 반환합니다. SDPA는 가중치를 반환하지 않으므로, 가중치를 따로 계산해 반환하면 SDPA로 아낄 수 있는 (B, H, T, T) 행렬을 결국 만들게 됩니다.",
    },
    "hint_dropout_default": {
        "ja": "コンストラクタの dropout の既定値は 0.0 です：def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0)。既定値を変えると、dropout を渡さずに作ったモデル（第5回で学習させるモデルなど）が、学習のあいだずっとアテンションの重みの一部を 0 にしてしまいます。",
        "ko": "생성자에서 dropout의 기본값은 0.0이어야 합니다: def __init__(self, embed_dim, n_head, max_len=64, dropout=0.0). 기본값을 바꾸면 dropout을 넘기지 않고 만든 모델(5강에서 학습시키는 모델 등)이 학습하는 내내 어텐션 가중치의 일부를 0으로 만들어 버립니다.",
    },
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
