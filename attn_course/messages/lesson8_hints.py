"""Lesson 8's hints for mistakes a learner made that no hint named before (a Korean learner's run of lesson 8): a
StreamingLLM cache kept with a negative slice, a ring's first position off by one, keys rotated twice, and others; and
the hints of exercises 15 (a sink through FlexAttention's log-sum-exp) and 16 (Gemma 2's softcap as a score_mod).
Kept apart from lesson8.py, which is near the module-length limit."""

MESSAGES = {
    # ---------------------------------------------------------------- exercise 4: a rolling cache
    "hint_rolling_seen_off": {
        "ja": "新しいトークンの位置が1つ前にずれています。pos.max() は最後に書き込んだトークンの位置なので、次のトークンの位置は T_seen = int(pos.max()) + 1 から始まります（最初の呼び出しでは pos がすべて −1 なので 0 からです）。",
        "ko": "새 토큰의 위치가 하나 앞으로 밀렸습니다. pos.max()는 마지막으로 쓴 토큰의 위치이므로, 다음 토큰의 위치는 T_seen = int(pos.max()) + 1부터 시작합니다(첫 호출에서는 pos가 모두 −1이므로 0부터입니다).",
    },
    "hint_rolling_write_then_join": {
        "ja": "新しいトークンをリングに書き込んでから、そのリングと新しいキーをつないでいます。これでは新しいキーが2回入り、上書きされた古いキーは見えなくなります。リングと新しいキーをつないで計算してから、最後にリングに書き込みます。",
        "ko": "새 토큰을 링에 쓴 다음 그 링과 새 키를 이어 붙였습니다. 이러면 새 키가 두 번 들어가고, 덮어쓴 이전 키는 보이지 않게 됩니다. 링과 새 키를 이어 붙여 계산한 다음, 마지막에 링에 씁니다.",
    },
    "hint_rolling_pos_dtype": {
        "ja": "pos の dtype が整数ではありません。torch.full((window,), -1.0) のように小数で作ると float32 になり、整数の位置 positions を書き込めません。pos は torch.full((window,), -1, dtype=torch.long, device=q.device) で作ります。",
        "ko": "pos의 dtype이 정수가 아닙니다. torch.full((window,), -1.0)처럼 소수로 만들면 float32가 되어 정수 위치 positions를 쓸 수 없습니다. pos는 torch.full((window,), -1, dtype=torch.long, device=q.device)로 만듭니다.",
    },
    "hint_rolling_no_causal": {
        "ja": "新しいトークンどうしの因果マスクがありません。一度に2つ以上渡すと、前のほうのトークンが、同じ呼び出しで渡した後ろのトークン、つまり未来のキーまで見てしまいます（1つずつ渡すときは結果が正しいので、気づきにくい誤りです）。keep には (key_pos <= p) も & でつなぎます。",
        "ko": "새 토큰끼리의 인과 마스크가 없습니다. 한 번에 토큰을 두 개 이상 넘기면 앞쪽 토큰이 같은 호출의 뒤쪽 토큰, 즉 미래의 키까지 봅니다(하나씩 넘길 때는 맞아 보입니다). keep에는 (key_pos <= p)도 &로 잇습니다.",
    },
    "hint_weights_times_keys": {
        "ja": "重みにキーを掛けています（softmax(...) @ keys）。出力は重みとバリューの積です：torch.softmax(scores, dim=-1) @ values。",
        "ko": "가중치에 키를 곱했습니다(softmax(...) @ keys). 출력은 가중치와 밸류의 곱입니다: torch.softmax(scores, dim=-1) @ values.",
    },
    # ---------------------------------------------------------------- exercise 5: StreamingLLM
    "hint_stream_tail_slice": {
        "ja": "キャッシュのキー（またはバリュー）を x とします。T_new が window と等しいと、x[:, :, -(window - T_new):] は x[:, :, -0:]、つまり x[:, :, 0:] になり（-0 は 0 です）、何も追い出さずにキャッシュ全体を残してしまいます。残す最後の部分はキャッシュの長さ L = x.size(2) から数えて x[:, :, L - (window - T_new):] と書きます。これなら残す数が 0 のときは空になります。",
        "ko": "캐시의 키(또는 밸류)를 x라고 합시다. T_new가 window와 같으면 x[:, :, -(window - T_new):]는 x[:, :, -0:], 즉 x[:, :, 0:]이 되어(-0은 0입니다) 아무것도 내보내지 않고 캐시 전체를 남깁니다. 남길 마지막 부분은 캐시 길이 L = x.size(2)에서 세어 x[:, :, L - (window - T_new):]로 씁니다. 이렇게 하면 남길 개수가 0일 때 빈 텐서가 됩니다.",
    },
    "hint_stream_cache_turned": {
        "ja": "キャッシュとして、回したあとのキー（k_rot）を返しています。次の呼び出しではそのキーをもう一度回すので、回転が重なっていきます。キャッシュとして返すのは回す前のキー (k, v) で、回すのは呼び出しのたびに計算の中だけです。",
        "ko": "캐시로 돌린 뒤의 키(k_rot)를 반환했습니다. 다음 호출에서 그 키를 한 번 더 돌리므로 회전이 겹쳐 쌓입니다. 캐시로 반환하는 것은 돌리기 전의 키 (k, v)이고, 돌리는 것은 호출할 때마다 계산 안에서만 합니다.",
    },
    "hint_stream_query_from_zero": {
        "ja": "クエリを位置 0, 1, … で回しています。新しいトークンはキャッシュの最後にいるので、キャッシュと新しいトークンをつないだあとのキーの数を L_all とすると、クエリの位置は L_all - T_new, …, L_all - 1 です。",
        "ko": "쿼리를 위치 0, 1, …로 돌렸습니다. 새 토큰은 캐시의 끝에 있으므로 캐시와 새 토큰을 이은 뒤의 키 개수를 L_all이라 하면 쿼리의 위치는 L_all - T_new, …, L_all - 1입니다.",
    },
    "hint_stream_diagonal_minus_one": {
        "ja": "マスクの対角線が1つ左にずれていて、どのトークンも自分自身を見ていません。右下にそろえたマスクは tril(diagonal=L_all - T_new) です（L_all はキャッシュと新しいトークンをつないだあとのキーの数。- 1 は付けません）。",
        "ko": "마스크의 대각선이 하나 왼쪽으로 밀려서 어떤 토큰도 자기 자신을 보지 못합니다. 오른쪽 아래에 맞춘 마스크는 tril(diagonal=L_all - T_new)입니다(L_all은 캐시와 새 토큰을 이은 뒤의 키 개수이며, - 1을 붙이지 않습니다).",
    },
    # ---------------------------------------------------------------- exercises 7 and 8: MLA
    "hint_mla_rope_head_axis": {
        "ja": "k_R にヘッドの軸を付けずに rope に渡しています。k_R は (B, T, d_R) で全ヘッドが共有するので、k_R[:, None] で (B, 1, T, d_R) にしてから rope に渡し、q_R (B, H, T, d_R) と同じように回します。",
        "ko": "k_R에 헤드 축을 붙이지 않고 rope에 넘겼습니다. k_R은 (B, T, d_R)이고 모든 헤드가 함께 쓰므로, k_R[:, None]으로 (B, 1, T, d_R)로 만든 다음 rope에 넘겨 q_R (B, H, T, d_R)과 같은 방식으로 돌립니다.",
    },
    "hint_mla_cache_cat_dim": {
        "ja": "潜在キャッシュを時間の軸以外でつないでいます。c は (B, T, r)、k_R は (B, T, d_R) なので、時間の軸は dim=1 です：torch.cat([cache[0], c], dim=1)、torch.cat([cache[1], k_R], dim=1)。",
        "ko": "잠재 캐시를 시간 축이 아닌 축으로 이어 붙였습니다. c는 (B, T, r), k_R은 (B, T, d_R)이므로 시간 축은 dim=1입니다: torch.cat([cache[0], c], dim=1), torch.cat([cache[1], k_R], dim=1).",
    },
    "hint_mla_kR_head_axis": {
        "ja": "キャッシュした k_R にヘッドの軸が残っています（{shape}）。rope に渡すために付けた軸は、回したあと k_R[:, 0] で外し、(B, T, d_R) としてキャッシュします。",
        "ko": "캐시한 k_R에 헤드 축이 남아 있습니다({shape}). rope에 넘기려고 붙인 축은 돌린 뒤 k_R[:, 0]으로 떼어 내고 (B, T, d_R)로 캐시합니다.",
    },
    "hint_mla_norm_twice": {
        "ja": "キャッシュにある c をもう一度正規化しています。キャッシュの c はすでに kv_a_layernorm を通したものなので、正規化するのは新しいトークンの c だけで、キャッシュとつなぐのはそのあとです。",
        "ko": "캐시에 있는 c를 한 번 더 정규화했습니다. 캐시의 c는 이미 kv_a_layernorm을 거친 것이므로, 정규화는 새 토큰의 c에만 하고 캐시와 이어 붙이는 것은 그다음입니다.",
    },
    # ---------------------------------------------------------------- exercise 12: what a cache costs
    "hint_bytes_window_uncapped": {
        "ja": "スライディングウィンドウの層を、いつも window トークン分で数えています。まだ T < window のうちは T トークンしか入っていないので、その層が持つのは min(T, window) トークンです。",
        "ko": "슬라이딩 윈도 층을 늘 window 토큰만큼으로 셌습니다. 아직 T < window일 때는 토큰이 T개뿐이므로 그 층이 가지는 것은 min(T, window) 토큰입니다.",
    },
    "hint_return_not_int": {
        "ja": "{name} の戻り値が整数ではありません（いまは {got}）。バイト数は数を数える答えなので、/ や float(...) を使わずに整数を返してください。",
        "ko": "{name}의 반환값이 정수가 아닙니다(지금은 {got}). 바이트 수는 개수를 세는 답이므로 /나 float(...)를 쓰지 않고 정수를 반환하세요.",
    },
    # ---------------------------------------------------------------- exercise 15: a sink after flex_attention
    "hint_flex_sink_sign": {
        "ja": "σ(s_h − lse) を掛けています。これはシンクへ行った重みの割合です。トークンに残る割合は σ(lse − s_h) = e^lse / (e^lse + e^s_h) なので、出力には torch.sigmoid(lse - s_h) を掛けます。",
        "ko": "σ(s_h − lse)를 곱했습니다. 이것은 싱크로 간 가중치의 비율입니다. 토큰에 남는 비율은 σ(lse − s_h) = e^lse / (e^lse + e^s_h)이므로, 출력에는 torch.sigmoid(lse - s_h)를 곱합니다.",
    },
    "hint_flex_sink_log2": {
        "ja": "lse に ln 2 を掛けています（底が 2 の対数だと考えて、自然対数に直したようです）。flex_attention が返す aux.lse は、もう自然対数の log-sum-exp です。カーネルの中では底 2 で計算しますが、torch が返す前に ln 2 を掛けて直しています（torch/nn/attention/flex_attention.py の _finalize_outputs）。lse はそのまま使います。",
        "ko": "lse에 ln 2를 곱했습니다(밑이 2인 로그라고 보고 자연로그로 바꾼 것 같습니다). flex_attention이 반환하는 aux.lse는 이미 자연로그로 계산한 log-sum-exp입니다. 커널 안에서는 밑 2로 계산하지만, torch가 반환하기 전에 ln 2를 곱해 바꿔 둡니다(torch/nn/attention/flex_attention.py의 _finalize_outputs). lse는 그대로 씁니다.",
    },
    "hint_flex_sink_scaled": {
        "ja": "シンクのロジットを √D で割っています。lse は √D で割ったあとのスコアから求めた log-sum-exp で、s_h はそれと同じ尺度のロジットです（演習 6 でも s_h は割りませんでした）。s_h は割らずに、torch.sigmoid(lse - s_h) に使います。",
        "ko": "싱크 로짓을 √D로 나눴습니다. lse는 √D로 나눈 뒤의 점수로 구한 log-sum-exp이고, s_h는 그것과 같은 척도의 로짓입니다(연습 문제 6에서도 나누지 않았습니다). s_h는 나누지 말고 torch.sigmoid(lse - s_h)를 그대로 쓰세요.",
    },
    "hint_flex_sink_missing": {
        "ja": "flex_attention の出力をそのまま返しています（シンクのないアテンションです）。return_aux=AuxRequest(lse=True) で lse も受け取り、出力に torch.sigmoid(lse - s_h) を掛けます。",
        "ko": "flex_attention의 출력을 그대로 반환했습니다(싱크가 없는 어텐션입니다). return_aux=AuxRequest(lse=True)로 lse도 받아서, 출력에 torch.sigmoid(lse - s_h)를 곱합니다.",
    },
    "hint_flex_sink_unsqueeze": {
        "ja": "lse の形状は (B, H, T_q)、出力は (B, H, T_q, D) です。そのまま掛けると最後の軸どうし（T_q と D）を合わせようとして、形状のエラーになります。sinks.view(1, -1, 1) で s_h を (1, H, 1) にし、σ(lse − s_h) に .unsqueeze(-1) をつけて (B, H, T_q, 1) にしてから掛けます。",
        "ko": "lse의 모양은 (B, H, T_q)이고 출력은 (B, H, T_q, D)입니다. 그대로 곱하면 마지막 축끼리(T_q와 D) 맞추려고 해서 모양 오류가 납니다. sinks.view(1, -1, 1)로 s_h를 (1, H, 1)로 만들고, σ(lse − s_h)에 .unsqueeze(-1)을 붙여 (B, H, T_q, 1)로 만든 다음 곱합니다.",
    },
    # ---------------------------------------------------------------- exercise 16: Gemma 2's softcap
    "hint_softcap_outside": {
        "ja": "cap を tanh の外で掛けるだけで、中で割っていません（cap * tanh(score)）。これではスコアが ±1 の中でつぶれてから cap 倍されます。Gemma 2 のソフトキャップは cap * tanh(score / cap) です。cap より十分小さいスコアはほぼそのまま残り、大きいスコアだけが ±cap に近づきます。",
        "ko": "cap을 tanh 밖에서 곱하기만 하고 안에서 나누지 않았습니다(cap * tanh(score)). 이러면 점수가 ±1 안에서 뭉개진 다음 cap배가 됩니다. Gemma 2의 소프트캡은 cap * tanh(score / cap)입니다. cap보다 충분히 작은 점수는 거의 그대로 남고, 큰 점수만 ±cap에 가까워집니다.",
    },
    "hint_softcap_inverted": {
        "ja": "tanh(score * cap) / cap を返しています。cap を 1/cap（50 なら 1/50）として使ったことになり、スコアが ±1/cap の中に押し込まれて、重みはほぼ一様になります。cap はそのまま、cap * tanh(score / cap) と書きます。",
        "ko": "tanh(score * cap) / cap을 반환했습니다. cap을 1/cap(50이면 1/50)으로 쓴 셈이 되어 점수가 ±1/cap 안으로 밀려 들어가고, 가중치는 거의 균등해집니다. cap은 그대로 두고 cap * tanh(score / cap)으로 씁니다.",
    },
    "hint_softcap_not_rescaled": {
        "ja": "tanh(score / cap) で終わっていて、cap を掛け戻していません。スコアが ±1 の中に縮み、重みは一様に近づきます。cap * tanh(score / cap) です。",
        "ko": "tanh(score / cap)에서 끝나고 cap을 다시 곱하지 않았습니다. 점수가 ±1 안으로 줄어들어 가중치가 균등에 가까워집니다. cap * tanh(score / cap)입니다.",
    },
    "hint_softcap_clamp": {
        "ja": "スコアを ±cap で切っています（clamp）。Gemma 2 のソフトキャップは tanh でなめらかに曲げるので、絶対値が cap より小さいスコアも少し 0 に寄り、±cap を超えるところでも勾配が 0 になりません。cap * tanh(score / cap) と書きます。",
        "ko": "점수를 ±cap에서 잘랐습니다(clamp). Gemma 2의 소프트캡은 tanh로 매끄럽게 구부리므로, 절댓값이 cap보다 작은 점수도 조금 0 쪽으로 움직이고 ±cap 밖에서도 기울기가 0이 되지 않습니다. cap * tanh(score / cap)으로 씁니다.",
    },
    "hint_softcap_missing": {
        "ja": "スコアが変わっていません（ソフトキャップのないアテンションと同じ出力です）。score_mod は受け取った score から新しいスコア cap * tanh(score / cap) を作って返します。",
        "ko": "점수가 바뀌지 않았습니다(소프트캡이 없는 어텐션과 같은 출력입니다). score_mod는 받은 score로 새 점수 cap * tanh(score / cap)을 만들어 반환합니다.",
    },
}
