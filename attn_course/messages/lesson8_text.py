"""Lesson 8's notebook texts: what its demo cells print, its tables and explorer labels, and its code comments."""

MESSAGES = {
    # ---------------------------------------------------------------- tables and printed lines
    "yes": {"ja": "はい", "ko": "예"},
    "no": {"ja": "いいえ", "ko": "아니요"},
    "table_mod": {"ja": "mask_mod", "ko": "mask_mod"},
    "table_flex_vs_sdpa": {
        "ja": "flex_attention と、テンソルのマスクを渡した SDPA の差（最大）",
        "ko": "flex_attention과 텐서 마스크를 넘긴 SDPA의 차이(최대)",
    },
    "row_causal_mod": {"ja": "causal_mod（第3回の因果マスク）", "ko": "causal_mod(3강의 인과 마스크)"},
    "row_cache_mod": {
        "ja": "cache_mod(8)（第6回のキャッシュ、新しいトークン 4 個）",
        "ko": "cache_mod(8)(6강의 캐시, 새 토큰 4개)",
    },
    "row_padding_mod": {"ja": "causal_padding_mod（長さ 12 と 7）", "ko": "causal_padding_mod(길이 12와 7)"},
    "row_create_mask": {
        "ja": "create_mask(causal_padding_mod) はテンソルのマスクと同じか",
        "ko": "create_mask(causal_padding_mod)가 텐서 마스크와 같은가",
    },
    "alibi_vs_bloom": {
        "ja": "あなたの alibi_score_mod と、BLOOM のバイアス（build_alibi_tensor）を足した SDPA の差（最大）: {err:.1e}",
        "ko": "여러분의 alibi_score_mod와 BLOOM의 편향(build_alibi_tensor)을 더한 SDPA의 차이(최대): {err:.1e}",
    },
    "table_sparsity": {"ja": "sparsity()（%）", "ko": "sparsity()(%)"},
    "table_partial_blocks": {"ja": "一部だけ見えるブロック", "ko": "일부만 보이는 블록"},
    "table_full_blocks": {"ja": "全部見えるブロック", "ko": "모두 보이는 블록"},
    "table_skipped_blocks": {"ja": "飛ばせるブロック", "ko": "건너뛸 수 있는 블록"},
    "row_padding_600": {
        "ja": "causal_padding_mod（2系列、2つ目は 600 トークン）",
        "ko": "causal_padding_mod(시퀀스 2개, 두 번째는 토큰 600개)",
    },
    "row_window": {"ja": "sliding_window_mod({w})", "ko": "sliding_window_mod({w})"},
    "row_documents": {
        "ja": "document_mod（長さ 300、120、380、224 の4文書）",
        "ko": "document_mod(길이 300, 120, 380, 224인 문서 네 개)",
    },
    "window_vs_mistral": {
        "ja": "新しいトークン {T_new} 個、キャッシュ {T_past} 個：transformers の Mistral のマスクと同じか → {same}",
        "ko": "새 토큰 {T_new}개, 캐시 {T_past}개: transformers의 Mistral 마스크와 같은가 → {same}",
    },
    "rolling_check": {
        "ja": "あなたの attend_rolling で1トークンずつ計算した出力と、あなたの sliding_window_mod と flex_attention で系列全体を一度に計算した出力の差（最大）: {right:.1e}（ほぼ 0 になるはずです。0 にならないときは、この2つの関数のどちらかが違います。演習 3 と演習 4 のチェックがどちらも ✔ か確かめてください）、位置を毎回 0 から数える RoPE を渡したとき {wrong:.2f}\n最後のリングの形状 {shape}、各スロットの位置 {pos}",
        "ko": "여러분의 attend_rolling으로 토큰을 하나씩 계산한 출력과, 여러분의 sliding_window_mod와 flex_attention으로 시퀀스 전체를 한 번에 계산한 출력의 차이(최대): {right:.1e}(거의 0이어야 합니다. 0이 아니면 이 두 함수 중 하나가 틀린 것입니다. 연습 3과 연습 4의 체크가 모두 ✔인지 확인하세요), 위치를 매번 0부터 세는 RoPE를 넘겼을 때 {wrong:.2f}\n마지막 링의 모양 {shape}, 각 슬롯의 위치 {pos}",
    },
    "table_step": {"ja": "渡したトークン", "ko": "넘긴 토큰"},
    "table_kept_positions": {"ja": "キャッシュに残っている元の位置", "ko": "캐시에 남아 있는 원래 위치"},
    "table_cache_length": {"ja": "キャッシュの長さ", "ko": "캐시 길이"},
    "sink_vs_gpt_oss": {
        "ja": "GptOssAttention（transformers）の出力との差（最大）: {err:.1e}\n最後のトークンのクエリの、ヘッドごとの重みの和（s_h = {sinks}）: {sums}（1 に足りない分がシンクへ行った重み）",
        "ko": "GptOssAttention(transformers) 출력과의 차이(최대): {err:.1e}\n마지막 토큰 쿼리의 헤드별 가중치 합(s_h = {sinks}): {sums}(1에 모자라는 만큼이 싱크로 간 가중치)",
    },
    "table_head": {"ja": "ヘッド", "ko": "헤드"},
    "table_first_no_sink": {
        "ja": "先頭のトークンへの重み（シンクなし）",
        "ko": "맨 앞 토큰으로 가는 가중치(싱크 없음)",
    },
    "table_first_sink": {
        "ja": "先頭のトークンへの重み（シンクあり）",
        "ko": "맨 앞 토큰으로 가는 가중치(싱크 있음)",
    },
    "table_to_sink": {"ja": "シンクへの重み", "ko": "싱크로 가는 가중치"},
    "widget_sink": {"ja": "シンク", "ko": "싱크"},
    "layer_no_sink": {"ja": "シンクなし", "ko": "싱크 없음"},
    "layer_sink": {"ja": "シンクあり（s_h = 0, 1, 2, 3）", "ko": "싱크 있음(s_h = 0, 1, 2, 3)"},
    "mla_vs_deepseek": {
        "ja": "DeepseekV3Attention（transformers）の出力との差（最大）: {err:.1e}",
        "ko": "DeepseekV3Attention(transformers) 출력과의 차이(최대): {err:.1e}",
    },
    "absorbed_vs_deepseek": {
        "ja": "吸収した形で1トークンずつ計算した出力と DeepseekV3Attention の差（最大）: {err:.1e}\nキャッシュの形状: c {c}、k_R {k}",
        "ko": "흡수한 형태로 토큰을 하나씩 계산한 출력과 DeepseekV3Attention의 차이(최대): {err:.1e}\n캐시의 모양: c {c}, k_R {k}",
    },
    "table_attention_kind": {"ja": "キャッシュの持ち方（DeepSeek-V3 の大きさ）", "ko": "캐시 방식(DeepSeek-V3 크기)"},
    "table_numbers_per_token": {"ja": "1トークン・1層あたりの数", "ko": "토큰 하나·층 하나당 수"},
    "row_mha_v3": {
        "ja": "マルチヘッドアテンション（キー 128 × 192、バリュー 128 × 128）",
        "ko": "멀티 헤드 어텐션(키 128 × 192, 밸류 128 × 128)",
    },
    "row_gqa8": {
        "ja": "GQA（KV ヘッド 8 個、キーとバリューの幅 128：Llama 3 8B と同じ形）",
        "ko": "GQA(KV 헤드 8개, 키와 밸류의 폭 128: Llama 3 8B와 같은 형태)",
    },
    "row_mla_v3": {"ja": "MLA（c 512 + k_R 64）", "ko": "MLA(c 512 + k_R 64)"},
    "progress_copy": {"ja": "キャッシュの長さ", "ko": "캐시 길이"},
    "table_copied_mib": {"ja": "cat が1回にコピーする量（MiB、キーだけ）", "ko": "cat이 한 번에 복사하는 양(MiB, 키만)"},
    "table_cat_us": {"ja": "torch.cat（µs、中央値）", "ko": "torch.cat(µs, 중앙값)"},
    "table_write_us": {"ja": "確保済みのバッファに書く（µs、中央値）", "ko": "확보해 둔 버퍼에 쓰기(µs, 중앙값)"},
    "preallocated_check": {
        "ja": "1トークンずつ計算した出力と、系列全体を一度に計算した出力の差（最大）: {err:.1e}（ほぼ 0 になるはずです）\nバッファは最後まで同じメモリにあるか: {same}",
        "ko": "토큰을 하나씩 계산한 출력과 시퀀스 전체를 한 번에 계산한 출력의 차이(최대): {err:.1e}(거의 0이어야 합니다)\n버퍼가 끝까지 같은 메모리에 있는가: {same}",
    },
    "table_sequence": {"ja": "系列", "ko": "시퀀스"},
    "table_length": {"ja": "長さ", "ko": "길이"},
    "table_block_table": {"ja": "ブロックテーブル", "ko": "블록 테이블"},
    "table_unused_paged": {"ja": "使っていないスロット（ページ）", "ko": "쓰지 않는 슬롯(페이지)"},
    "table_unused_static": {"ja": "使っていないスロット（T_max = 16 で確保）", "ko": "쓰지 않는 슬롯(T_max = 16으로 확보)"},
    "table_paged_error": {"ja": "連続したキャッシュとの差（最大）", "ko": "연속된 캐시와의 차이(최대)"},
    "packed_check": {
        "ja": "packed_positions: {positions}\ntransformers が位置から見つけた文書: {docs}\n文書を1つずつ計算した出力との差（最大）: あなたの位置と document_mod {right:.1e}、位置を 0 に戻さずに document_mod {no_reset:.1e}（どちらもほぼ 0 になるはずです）\n位置が 0, 1, 2, … のままのとき transformers が見つける文書: {found}（区切りなし）。ふつうの因果マスクで計算したときの差: {wrong:.2f}",
        "ko": "packed_positions: {positions}\ntransformers가 위치에서 찾은 문서: {docs}\n문서를 하나씩 계산한 출력과의 차이(최대): 여러분의 위치와 document_mod {right:.1e}, 위치를 되돌리지 않고 document_mod {no_reset:.1e}(둘 다 거의 0이어야 합니다)\n위치가 0, 1, 2, … 그대로이면 transformers가 찾는 문서: {found}(경계 없음). 보통의 인과 마스크로 계산했을 때의 차이: {wrong:.2f}",
    },
    "varlen_cpu": {
        "ja": "CPU で varlen_attn を呼ぶと: {kind}: {error} …",
        "ko": "CPU에서 varlen_attn을 호출하면: {kind}: {error} …",
    },
    "varlen_meta": {
        "ja": "meta デバイスでは形状だけ計算できます: {shape}（T, H, D）",
        "ko": "meta 장치에서는 모양만 계산할 수 있습니다: {shape}(T, H, D)",
    },
    "v3_defaults": {
        "ja": "DeepseekV3Config() の既定値: 層 {layers}、kv_lora_rank {r}、qk_rope_head_dim {d_R}（ここまでは DeepSeek-V3 と同じ）\nRoPE の種類 {rope}、max_position_embeddings {max_pos}（公開されている V3 の設定は yarn と 163840）",
        "ko": "DeepseekV3Config()의 기본값: 층 {layers}, kv_lora_rank {r}, qk_rope_head_dim {d_R}(여기까지는 DeepSeek-V3와 같음)\nRoPE 종류 {rope}, max_position_embeddings {max_pos}(공개된 V3의 설정은 yarn과 163840)",
    },
    "table_model": {"ja": "モデル", "ko": "모델"},
    "table_gib": {"ja": "{bits} ビット、{T}（GiB）", "ko": "{bits}비트, {T}(GiB)"},
    "table_static_cache": {
        "ja": "StaticCache が確保したバイト数（T = 64）",
        "ko": "StaticCache가 확보한 바이트 수(T = 64)",
    },
    # ---------------------------------------------------------------- comments in code cells
    "c8_flex_warning": {
        "ja": "コンパイルせずに使うので、融合カーネルではないという一度きりの警告は出さない",
        "ko": "컴파일하지 않고 쓰므로, 융합 커널이 아니라는 경고(한 번만 나옴)는 끔",
    },
    "c8_true_position": {"ja": "新しいトークンの本当の位置は q_idx + T_past", "ko": "새 토큰의 실제 위치는 q_idx + T_past"},
    "c8_lesson3_mask": {"ja": "第3回のテンソルのマスク", "ko": "3강의 텐서 마스크"},
    "c8_lesson6_mask": {"ja": "第6回：右下にそろえた因果マスク", "ko": "6강: 오른쪽 아래에 맞춘 인과 마스크"},
    "c8_alibi_slopes": {"ja": "H = 8 の ALiBi の傾き：1/2, 1/4, …, 1/256", "ko": "H = 8인 ALiBi의 기울기: 1/2, 1/4, …, 1/256"},
    "c8_bloom_bias": {"ja": "BLOOM のバイアス m_h · j：(B, H, 1, T)", "ko": "BLOOM의 편향 m_h · j: (B, H, 1, T)"},
    "c8_block_counts_doc": {
        "ja": "sparsity() と、一部だけ見える・全部見える・飛ばせるブロックの数",
        "ko": "sparsity()와 일부만 보이는·모두 보이는·건너뛸 수 있는 블록의 수",
    },
    "c8_absolute": {"ja": "系列の中での絶対位置", "ko": "시퀀스 안에서의 절대 위치"},
    "c8_write_after": {
        "ja": "計算が終わってから、最後の min(T_new, W) 個をリングに書く",
        "ko": "계산이 끝난 뒤 마지막 min(T_new, W)개를 링에 씀",
    },
    "c8_prefill_past_w": {"ja": "ウィンドウより長いプリフィル", "ko": "윈도보다 긴 프리필"},
    "c8_evict_first": {"ja": "新しいトークンを入れる前に追い出す", "ko": "새 토큰을 넣기 전에 내보냄"},
    "c8_cache_positions": {"ja": "位置はキャッシュの中で数える", "ko": "위치는 캐시 안에서 셈"},
    "c8_no_rotation": {"ja": "ここでは回さない（位置の印を読むため）", "ko": "여기서는 돌리지 않음(위치 표시를 읽기 위해)"},
    "c8_marks": {"ja": "トークン t のキーは (t, t)：キャッシュから元の位置が読める", "ko": "토큰 t의 키는 (t, t): 캐시에서 원래 위치를 읽을 수 있음"},
    "c8_drop_sink": {"ja": "シンクの列をつないでソフトマックスをとり、その列を捨てる", "ko": "싱크 열을 더해 소프트맥스를 적용하고 그 열을 버림"},
    "c8_eager": {"ja": "モデルを通さずに単独で作ったモジュールには、アテンションの実装がまだ選ばれていない", "ko": "따로 만든 모듈에는 어텐션 구현이 정해져 있지 않음"},
    "c8_gqa_groups": {"ja": "KV ヘッド 2 個を、クエリのヘッド 4 個に広げる", "ko": "KV 헤드 2개를 쿼리 헤드 4개로 늘림"},
    "c8_sink_share_last": {
        "ja": "(4, 6, 7)：最後の列はシンクへ行った重み（1 − 行の和）",
        "ko": "(4, 6, 7): 마지막 열은 싱크로 간 가중치(1 − 행의 합)",
    },
    "c8_sink_values": {"ja": "ヘッドごとのシンクのロジット s_h", "ko": "헤드별 싱크 로짓 s_h"},
    "c8_no_cpu_kernel": {"ja": "CPU にはこのカーネルがない", "ko": "CPU에는 이 커널이 없음"},
    "c8_head_views": {"ja": "ヘッドごとに特徴量を混ぜる行列", "ko": "헤드마다 특징을 섞는 행렬"},
    "c8_same_names": {"ja": "層の名前と形状が同じなので、そのまま読み込める", "ko": "층의 이름과 모양이 같아서 그대로 읽어 들일 수 있음"},
    "c8_batched_calls": {"ja": "短い操作は 2 ms 分ほどまとめて呼ぶ（1回だけでは時計の刻みより短い）", "ko": "짧은 연산은 2 ms 정도 분량을 한꺼번에 호출(한 번만으로는 타이머 정밀도보다 짧음)"},
    "c8_one_thread": {"ja": "1スレッドで測る（混んだ CPU では、スレッドの待ち合わせで値が跳ねる）", "ko": "스레드 하나로 잼(바쁜 CPU에서는 스레드끼리 기다리느라 값이 튐)"},
    "c8_median": {"ja": "中央値：ほかの作業による揺れを減らす", "ko": "중앙값: 다른 작업 때문에 생기는 흔들림을 줄임"},
    "c8_write_in_place": {"ja": "確保してあるバッファに、その場で書き込む", "ko": "확보해 둔 버퍼에 그 자리에서 씀"},
    "c8_gpt2_weights_doc": {
        "ja": "GPT-2 式のアテンションの重み行列（c_attn、c_proj）と n_head だけを持つモジュール",
        "ko": "GPT-2 형식 어텐션의 가중치 행렬(c_attn, c_proj)과 n_head만 가진 모듈",
    },
    "c8_pages_used": {"ja": "使う論理ページの数：length / P の切り上げ", "ko": "쓰는 논리 페이지 수: length / P를 올림한 값"},
    "c8_interleaved_decode": {
        "ja": "2つの系列を1トークンずつ交互に生成し、ページは必要になったときに借りる",
        "ko": "두 시퀀스를 토큰 하나씩 번갈아 생성하고, 페이지는 필요할 때 빌림",
    },
    "c8_each_alone": {"ja": "文書を1つずつ、位置 0 から計算する", "ko": "문서를 하나씩 위치 0부터 계산"},
    "c8_one_latent": {
        "ja": "MLA：1トークン・1層あたり、潜在ベクトルと RoPE のキーを合わせた latent_dim 個",
        "ko": "MLA: 토큰 하나·층 하나당 잠재 벡터와 RoPE 키를 합친 latent_dim개",
    },
    "c8_v3_defaults": {
        "ja": "既定値の層の数と幅は DeepSeek-V3 と同じ（RoPE と最大の長さは違う）",
        "ko": "기본값의 층 수와 폭은 DeepSeek-V3와 같음(RoPE와 최대 길이는 다름)",
    },
    "c8_allocated_doc": {
        "ja": "形は同じで大きさだけ小さくした設定の StaticCache に各層1回ずつ書き込み、確保されたバイト数を合計する",
        "ko": "같은 형태의 작은 설정으로 만든 StaticCache에 층마다 한 번 써 넣고, 확보된 바이트 수를 더함",
    },
    # ---------------------------------------------------------------- section 8: sinks and softcaps in fused kernels
    "c8_sink_kept_share": {
        "ja": "(B, H, T_q)：トークンに残る重みの割合 e^lse / (e^lse + e^s_h)",
        "ko": "(B, H, T_q): 토큰에 남는 가중치의 비율 e^lse / (e^lse + e^s_h)",
    },
    "c8_block_once": {"ja": "BlockMask は一度作り、同じ形状の呼び出しで使い回す", "ko": "BlockMask는 한 번 만들고 같은 모양의 호출에서 다시 씀"},
    "flex_sink_vs": {
        "ja": "flex_attention と lse で組み込んだシンク：演習 6 の sink_attention との差（最大）: {ex6:.1e}、gpt-oss の eager_attention_forward（transformers）との差（最大）: {oss:.1e}",
        "ko": "flex_attention의 출력에 lse로 적용한 싱크: 연습 문제 6의 sink_attention과의 차이(최대) {ex6:.1e}, gpt-oss의 eager_attention_forward(transformers)와의 차이(최대) {oss:.1e}",
    },
    "gemma_layers": {
        "ja": "{name} の既定値：sliding_window = {window}、attn_logit_softcapping = {cap}、層の並び（W：ウィンドウ、G：全体）{layers}",
        "ko": "{name}의 기본값: sliding_window = {window}, attn_logit_softcapping = {cap}, 층 배치(W: 윈도, G: 전체) {layers}",
    },
    "c8_gemma_scale": {
        "ja": "スケール 1/√query_pre_attn_scalar を 1/√D（head_dim = 16）にそろえる",
        "ko": "스케일 1/√query_pre_attn_scalar를 1/√D(head_dim = 16)에 맞춤",
    },
    "c8_gemma_mask": {"ja": "全体の層では W_g = T なので因果マスクと同じ", "ko": "전체 층에서는 W_g = T이므로 인과 마스크와 같음"},
    "table_layer": {"ja": "層", "ko": "층"},
    "table_softcap_err": {
        "ja": "softcap_score_mod と Gemma 2（eager）の差（最大）",
        "ko": "softcap_score_mod와 Gemma 2(eager)의 차이(최대)",
    },
    "table_no_softcap_err": {"ja": "ソフトキャップの有無による差（最大）", "ko": "소프트캡 유무에 따른 차이(최대)"},
}
